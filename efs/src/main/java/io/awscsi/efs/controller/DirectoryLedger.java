package io.awscsi.efs.controller;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;

/**
 * The record of efs-dir volumes, kept in the file system itself at {@code /.efs-csi-volumes/<sha256 of volume id>}:
 * which volume a directory was made for, and under which basePath. DeleteVolume only gets a volume id, which does not
 * say where basePath ends, and must not delete a directory the driver did not make; this record answers both. It sits
 * outside every volume directory, so a pod using a volume cannot change it.
 */
final class DirectoryLedger {

  static final String DIRECTORY = ".efs-csi-volumes";

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
    Files.move(temporary, ledger, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return new Recorded(entry, true);
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
