package io.awscsi.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Device numbers in the {@code major:minor} form of mountinfo, for telling whether two paths are the same device. */
public final class DeviceNumbers {

  private DeviceNumbers() {}

  /** The {@code major:minor} of the device a device file (block or character) stands for. */
  public static String ofDeviceFile(Path deviceFile) throws IOException {
    return format((Long) Files.getAttribute(deviceFile, "unix:rdev"));
  }

  /** The {@code major:minor} of the file system a path lives on, as mountinfo's third field shows it. */
  public static String ofFileSystemOf(Path path) throws IOException {
    return format((Long) Files.getAttribute(path, "unix:dev"));
  }

  /** glibc's dev_t layout: 12 bits of major and 20 of minor, split across the low and high words. */
  static String format(long dev) {
    long major = ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
    long minor = (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
    return major + ":" + minor;
  }
}
