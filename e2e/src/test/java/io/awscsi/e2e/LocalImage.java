package io.awscsi.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.awscsi.e2e.image.ImageArchive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The driver images built without a container engine ({@code hack/image/build-driver-image.sh}, {@code make image}:
 * one per driver, aws-csi-driver-ebs and aws-csi-driver-efs), as their docker-archive tarballs hold them, for the
 * tests that hold each against the Dockerfile's image of that driver (DRIVER=ebs, DRIVER=efs). The tests run when
 * {@code -Daws-csi.images=DIR} names the directory of the tarballs ({@code make test-images} does); without it they
 * are skipped, saying so. {@code -Daws-csi.image-arch=arm64} picks the arm64 image ({@code make image
 * ARCH=arm64}, {@code make test-images ARCH=arm64}), whose jre differs as {@link #JRE_DIFFERENCE} says.
 */
final class LocalImage {

  static final String PROPERTY = "aws-csi.images";
  static final String ARCH_PROPERTY = "aws-csi.image-arch";
  /** The machine the local build runs on, whose image is the one the cluster imports. */
  static final String HOST_ARCH = "amd64";

  /**
   * How another machine's local image (arm64, built here on amd64) differs from the Dockerfile's: its jre, whose
   * label names where it comes from and the modules it lacks of those jlink-runtime.sh asks for.
   */
  static final String JRE_DIFFERENCE = "io.awscsi.image.jre";

  /** One way the local image differs from the Dockerfile's, on purpose. */
  record Difference(String imagePackage, List<String> executables, String directory, String why) {}

  /** The drivers, one image each. */
  static final List<String> DRIVERS = List.of("ebs", "efs");

  /**
   * Every difference between the local EFS image and the Dockerfile's that the tests accept; any other one fails
   * them (the EBS images have no amazon-efs-utils either way). The local image's label {@code io.awscsi.image.without}
   * names the same packages.
   */
  static final List<Difference> DIFFERENCES = List.of(new Difference("amazon-efs-utils",
      List.of("mount.efs", "amazon-efs-mount-watchdog"), "/etc/amazon",
      "the Dockerfile builds amazon-efs-utils from its GitHub source (stage efs-utils), which cannot be fetched where "
          + "the local image is built (no registry serves it); the local cluster's pods run the emulated test image "
          + "built on it (aws-csi-driver-emulated: the EFS controller on local directories, the EFS node on "
          + "hack/efs-utils-standin's mount.efs)"));

  private static final Map<String, ImageArchive> IMAGES = new java.util.HashMap<>();

  private LocalImage() {}

  static Optional<Difference> difference(String driver, String imagePackage) {
    return differences(driver).stream().filter(d -> d.imagePackage().equals(imagePackage)).findFirst();
  }

  /** The machine architecture of the image under test, as Debian and OCI name it (amd64, arm64). */
  static String arch() {
    return System.getProperty(ARCH_PROPERTY, "").isBlank() ? HOST_ARCH : System.getProperty(ARCH_PROPERTY);
  }

  /** The tarball's name of a driver's image: the host machine's has the plain one. */
  static String tarball(String driver) {
    return "aws-csi-driver-" + driver + (arch().equals(HOST_ARCH) ? "" : "-" + arch()) + ".tar";
  }

  /** The differences of a driver's image. */
  static List<Difference> differences(String driver) {
    return driver.equals("efs") ? DIFFERENCES : List.of();
  }

  /** Netty's name for the machine, as in its library's file name (the JVM's os.arch, normalized). */
  static String nettyArch() {
    return switch (arch()) {
      case "amd64" -> "x86_64";
      case "arm64" -> "aarch_64";
      default -> throw new IllegalStateException("no Netty library name for " + arch());
    };
  }

  /** The local image of a driver, read once; skips the calling test when no image directory was given. */
  static synchronized ImageArchive image(String driver) {
    String dir = System.getProperty(PROPERTY, "");
    assumeTrue(!dir.isBlank(), "no local image to check: make test-images builds them and runs this with -D"
        + PROPERTY + "=.tools/images");
    if (!IMAGES.containsKey(driver)) {
      Path tarball = Path.of(dir).toAbsolutePath().resolve(tarball(driver));
      if (!Files.isRegularFile(tarball)) {
        throw new IllegalStateException(PROPERTY + "=" + dir + " holds no " + tarball(driver) + " (make image"
            + (arch().equals(HOST_ARCH) ? "" : " ARCH=" + arch()) + " writes it)");
      }
      try {
        IMAGES.put(driver, ImageArchive.read(tarball, LocalImage::keptAsText));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return IMAGES.get(driver);
  }

  /**
   * The packages of hack/image/runtime-packages.txt (or another list of its form) that DRIVER's image installs: the
   * unmarked ones and those marked [DRIVER] (hack/image/lib.sh's driver_packages).
   */
  static List<String> driverPackages(String driver, String list) {
    String other = driver.equals("ebs") ? "[efs]" : "[ebs]";
    return list.lines().filter(l -> !l.contains(other))
        .map(l -> l.replaceAll("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
  }

  private static boolean keptAsText(String path) {
    return path.equals("/var/lib/dpkg/status") || path.startsWith("/var/lib/dpkg/info/") && path.endsWith(".list")
        || path.equals("/etc/passwd") || path.equals("/etc/group") || path.endsWith("/jre/release");
  }

  /** The Debian package that installed the file at {@code path} (resolved), from the image's dpkg file lists. */
  static Optional<String> owningPackage(ImageArchive image, String path) {
    for (Map.Entry<String, String> list : image.texts().entrySet()) {
      if (!list.getKey().startsWith("/var/lib/dpkg/info/")) {
        continue;
      }
      for (String listed : list.getValue().split("\n")) {
        if (listed.endsWith(path.substring(path.lastIndexOf('/'))) && image.resolve(listed).orElse("").equals(path)) {
          String name = list.getKey().substring("/var/lib/dpkg/info/".length()).replace(".list", "");
          return Optional.of(name.replaceFirst(":[a-z0-9]+$", ""));
        }
      }
    }
    return Optional.empty();
  }
}
