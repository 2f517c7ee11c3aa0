package io.awscsi.efs.efsutils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Where efs-utils keeps what must outlive the node plugin's container, as the chart mounts it from the host:
 * {@code /var/amazon/efs} (configuration and the client certificates' private key), {@code /etc/amazon/efs-legacy}
 * (the host's {@code /etc/amazon/efs}, where earlier drivers kept them), {@code /var/run/efs} (one state file per
 * mount: its TLS proxy's port and command line, which the watchdog uses to start a dead proxy again). efs-utils reads
 * {@code /etc/amazon/efs}; the node points it at the host directory in use, as upstream does.
 *
 * @param configDir {@code --efs-utils-config-dir-path}: the host directory used unless the legacy one has a config
 * @param legacyConfigDir {@code --efs-utils-config-legacy-dir-path}
 * @param staticFilesDir {@code --efs-utils-static-files-path}: the package's files (CA bundle, default config) as
 *     the image installed them, copied into a fresh host directory
 * @param etcDir where efs-utils reads its configuration; a symbolic link to the directory in use
 * @param stateDir the mounts' state ({@code /var/run/efs}, which efs-utils does not let one change)
 */
public record EfsUtilsDirectories(Path configDir, Path legacyConfigDir, Path staticFilesDir, Path etcDir,
    Path stateDir) {

  private static final Logger LOG = LogManager.getLogger(EfsUtilsDirectories.class);
  /** The CA bundle of the image is always the one to use; every other file the host already has is kept. */
  static final String CA_FILE = "efs-utils.crt";
  private static final String STUNNEL_CONFIG_PREFIX = "stunnel-config.";
  /** An option newer stunnel builds refuse; state files of mounts made by old drivers may still carry it. */
  private static final String LIBWRAP_OFF = "libwrap = no";

  public static final EfsUtilsDirectories DEFAULT = new EfsUtilsDirectories(Path.of("/var/amazon/efs"),
      Path.of("/etc/amazon/efs-legacy"), Path.of("/etc/amazon/efs-static-files"), Path.of("/etc/amazon/efs"),
      Path.of("/var/run/efs"));

  public EfsUtilsDirectories {
    Objects.requireNonNull(configDir, "configDir");
    Objects.requireNonNull(legacyConfigDir, "legacyConfigDir");
    Objects.requireNonNull(staticFilesDir, "staticFilesDir");
    Objects.requireNonNull(etcDir, "etcDir");
    Objects.requireNonNull(stateDir, "stateDir");
  }

  /**
   * Makes the directories ready before the watchdog starts or anything is mounted: {@link #linkEtcDir() links} the
   * directory efs-utils reads, {@link #restoreStaticFiles(Path) restores} the package's files into it, creates the
   * state directory, and takes the option stunnel refuses out of old state files.
   *
   * @return the directory efs-utils reads its configuration from (etcDir resolved)
   * @throws UncheckedIOException naming the directory that cannot be prepared
   */
  public Path prepare() {
    Path config = linkEtcDir();
    restoreStaticFiles(config);
    try {
      Files.createDirectories(stateDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the efs-utils state directory " + stateDir, e);
    }
    int mounts = stripLibwrap();
    LOG.info("efs-utils: configuration in {} (read as {}), mount state in {} ({} mount state file(s) found)", config,
        etcDir, stateDir, mounts);
    return config;
  }

  /**
   * The directory efs-utils reads: a link already there (or a directory the image made) is used as it is; otherwise a
   * link to the legacy directory when it holds a configuration (a host whose mounts an earlier driver made), else to
   * the config directory, else to whichever of the two is mounted; with neither, a plain directory (nothing outlives
   * the container).
   */
  Path linkEtcDir() {
    try {
      if (Files.exists(etcDir)) {
        return etcDir.toRealPath();
      }
      if (Files.isSymbolicLink(etcDir)) {
        // A link whose host directory is gone (a hostPath not mounted this time): point it anew.
        Files.delete(etcDir);
      }
      Files.createDirectories(etcDir.toAbsolutePath().getParent());
      Path target;
      if (Files.isRegularFile(legacyConfigDir.resolve(EfsUtilsConfig.FILE_NAME))) {
        target = legacyConfigDir;
      } else if (Files.isDirectory(configDir)) {
        target = configDir;
      } else if (Files.isDirectory(legacyConfigDir)) {
        target = legacyConfigDir;
      } else {
        LOG.warn("efs-utils: neither {} nor {} is mounted; its configuration and client keys will not outlive "
            + "this container", configDir, legacyConfigDir);
        Files.createDirectories(etcDir);
        return etcDir.toRealPath();
      }
      Files.createSymbolicLink(etcDir, target);
      LOG.info("efs-utils: {} links to {}", etcDir, target);
      return target.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot point " + etcDir + " at " + configDir + " or " + legacyConfigDir, e);
    }
  }

  /**
   * Copies the package's files into the directory in use: a host directory mounted fresh is empty, and efs-utils
   * needs its CA bundle. Files already there (private keys, an earlier config) are kept; the CA bundle is replaced so
   * it follows the image.
   */
  void restoreStaticFiles(Path config) {
    if (!Files.isDirectory(staticFilesDir)) {
      throw new UncheckedIOException(new IOException("the efs-utils static files directory " + staticFilesDir
          + " does not exist; the image saves the package's /etc/amazon/efs there"));
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(staticFilesDir)) {
      for (Path source : files) {
        if (!Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
          throw new IOException(source + " is not a regular file; the static files directory holds files only");
        }
        Path target = config.resolve(source.getFileName().toString());
        boolean caFile = source.getFileName().toString().equals(CA_FILE);
        if (caFile || !Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
          Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
          LOG.debug("efs-utils: copied {} to {}", source, target);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restore the efs-utils files of " + staticFilesDir + " into " + config
          + ": " + e.getMessage(), e);
    }
  }

  /** Takes {@code libwrap = no} out of stunnel state files; counts the mount state files. */
  private int stripLibwrap() {
    int mounts = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(stateDir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        if (!name.startsWith(STUNNEL_CONFIG_PREFIX)) {
          mounts++;
          continue;
        }
        try {
          String text = Files.readString(file);
          if (text.contains(LIBWRAP_OFF)) {
            Files.writeString(file, text.replace(LIBWRAP_OFF, ""));
            LOG.info("efs-utils: removed \"{}\" from {}", LIBWRAP_OFF, file);
          }
        } catch (IOException e) {
          LOG.warn("efs-utils: cannot update {}: {}", file, e.getMessage());
        }
      }
    } catch (IOException e) {
      LOG.warn("efs-utils: cannot read the state directory {}: {}", stateDir, e.getMessage());
    }
    return mounts;
  }
}
