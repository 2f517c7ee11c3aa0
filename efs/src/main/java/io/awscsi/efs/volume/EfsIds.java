package io.awscsi.efs.volume;

import java.util.regex.Pattern;

/** The shapes of EFS resource ids as upstream validates them: a prefix and 8 to 40 lower-case hex digits. */
public final class EfsIds {

  private static final Pattern FILE_SYSTEM_ID = Pattern.compile("fs-[0-9a-f]{8,40}");
  private static final Pattern ACCESS_POINT_ID = Pattern.compile("fsap-[0-9a-f]{8,40}");

  private EfsIds() {}

  public static boolean isFileSystemId(String id) {
    return FILE_SYSTEM_ID.matcher(id).matches();
  }

  public static boolean isAccessPointId(String id) {
    return ACCESS_POINT_ID.matcher(id).matches();
  }
}
