package io.awscsi.efs.controller;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The record of efs-dir volumes, kept in the file system itself at {@code /.efs-csi-volumes/<sha256 of volume id>}:
 * which volume a directory was made for, and under which basePath. DeleteVolume only gets a volume id, which does not
 * say where basePath ends, and must not delete a directory the driver did not make; this record answers both. It sits
 * outside every volume directory, so a pod using a volume cannot change it, and its name is reserved
 * ({@link DirectoryNames}): no volume name, subPathPattern or basePath can name it.
 */
final class DirectoryLedger {

  /** Starts with {@link DirectoryNames#RESERVED_PREFIX}, so no volume name or basePath can reach it. */
  static final String DIRECTORY = DirectoryNames.RESERVED_PREFIX + "-volumes";
  private static final Pattern RECORD_FILE = Pattern.compile("[0-9a-f]{64}");
  /** What FileSystemTree gives a directory it makes: only the controller writes here. */
  private static final Set<PosixFilePermission> LEDGER_PERMISSIONS = PosixFilePermissions.fromString("rwxr-xr-x");

  /**
   * One volume's record; {@code capacityBytes} is what the first CreateVolume asked for, -1 when unknown;
   * {@code requestHash} the {@link RequestFingerprint} of that call, "" when unknown (records of older versions).
   */
  record Entry(String volumeId, String basePath, String directory, long capacityBytes, String requestHash) {

    Entry(String volumeId, String basePath, String directory, long capacityBytes) {
      this(volumeId, basePath, directory, capacityBytes, "");
    }

    /** Whether both calls are known and asked for different things. */
    boolean otherRequest(Entry other) {
      return !requestHash.isEmpty() && !other.requestHash.isEmpty() && !requestHash.equals(other.requestHash);
    }

    /** Whether the record is about the same volume and place (the capacity is checked on its own). */
    boolean samePlace(Entry other) {
      return volumeId.equals(other.volumeId) && basePath.equals(other.basePath) && directory.equals(other.directory);
    }
  }

  private DirectoryLedger() {}

  /**
   * Writes the record unless one exists.
   *
   * @return the record now in place, and whether this call wrote it
   */
  static Recorded record(Path mountRoot, Entry entry) throws IOException {
    Optional<Entry> existing = read(mountRoot, entry.volumeId());
    if (existing.isPresent()) {
      return new Recorded(existing.get(), false);
    }
    Path ledger = FileSystemTree.createParents(mountRoot, "/" + DIRECTORY + "/" + fileName(entry.volumeId()));
    Path temporary = ledger.resolveSibling(ledger.getFileName() + ".tmp");
    Properties properties = new Properties();
    properties.setProperty("volumeId", entry.volumeId());
    properties.setProperty("basePath", entry.basePath());
    properties.setProperty("directory", entry.directory());
    properties.setProperty("capacityBytes", Long.toString(entry.capacityBytes()));
    properties.setProperty("request", entry.requestHash());
    // O_NOFOLLOW: a link planted at the temporary name must not make the controller write through it.
    try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      properties.store(out, "efs.csi.aws.com: directory created for this volume; DeleteVolume reads it");
    }
    reclaim(ledger.getParent(), Files.getOwner(temporary, LinkOption.NOFOLLOW_LINKS));
    Files.move(temporary, ledger, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return new Recorded(entry, true);
  }

  /**
   * Gives the ledger directory back to the controller, owner-writable only. Before names were confined, a volume
   * named like it made it a volume directory (a pod's owner, mode 777), where a tenant could forge records that
   * DeleteVolume trusts; the next record written takes it back.
   */
  private static void reclaim(Path directory, UserPrincipal controller) throws IOException {
    if (!Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).equals(controller)) {
      Files.setOwner(directory, controller);
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
    if (!permissions.equals(LEDGER_PERMISSIONS)) {
      Files.setPosixFilePermissions(directory, LEDGER_PERMISSIONS);
    }
  }

  /** The result of {@link #record}. */
  record Recorded(Entry entry, boolean written) {}

  /** The record of the volume, or empty when there is none. */
  static Optional<Entry> read(Path mountRoot, String volumeId) throws IOException {
    Optional<Path> directory = FileSystemTree.existingDirectory(mountRoot, "/" + DIRECTORY);
    if (directory.isEmpty()) {
      return Optional.empty();
    }
    Path file = directory.get().resolve(fileName(volumeId));
    if (Files.isSymbolicLink(file)) {
      throw new IOException(file + " is a symbolic link; the ledger was tampered with");
    }
    return load(file);
  }

  /**
   * Every record on the file system, to find volumes inside a directory about to be removed. Anything that is not a
   * record file (a leftover temporary file, a link) is skipped.
   */
  static List<Entry> entries(Path mountRoot) throws IOException {
    Optional<Path> directory = FileSystemTree.existingDirectory(mountRoot, "/" + DIRECTORY);
    if (directory.isEmpty()) {
      return List.of();
    }
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory.get())) {
      for (Path file : files) {
        if (RECORD_FILE.matcher(file.getFileName().toString()).matches()
            && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          load(file).ifPresent(entries::add);
        }
      }
    }
    return entries;
  }

  private static Optional<Entry> load(Path file) throws IOException {
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return Optional.of(new Entry(properties.getProperty("volumeId", ""), properties.getProperty("basePath", ""),
        properties.getProperty("directory", ""), capacity(properties.getProperty("capacityBytes", "-1")),
        properties.getProperty("request", "")));
  }

  private static long capacity(String value) {
    try {
      return value.matches("\\d{1,19}") ? Long.parseLong(value) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Removes the volume's record; none is success. */
  static void remove(Path mountRoot, String volumeId) throws IOException {
    Optional<Path> directory = FileSystemTree.existingDirectory(mountRoot, "/" + DIRECTORY);
    if (directory.isPresent()) {
      Files.deleteIfExists(directory.get().resolve(fileName(volumeId)));
    }
  }

  static String fileName(String volumeId) {
    return ClientTokens.sha256Hex(volumeId);
  }
}
