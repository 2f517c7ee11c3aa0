package io.awscsi.efs.volume;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.IdSyntax;
import java.util.Optional;
import java.util.regex.Pattern;

/** The shapes of EFS resource ids as upstream validates them: a prefix and 8 to 40 lower-case hex digits. */
public final class EfsIds {

  /** Volume ids are volume handles ({@link VolumeHandle}); driver-core answers any other id at the edge. */
  public static final IdSyntax SYNTAX = new IdSyntax() {
    @Override
    public Optional<String> volumeIdProblem(String id) {
      try {
        VolumeHandle.parse(id);
        return Optional.empty();
      } catch (DriverException e) {
        return Optional.of(e.error().message());
      }
    }
  };

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
