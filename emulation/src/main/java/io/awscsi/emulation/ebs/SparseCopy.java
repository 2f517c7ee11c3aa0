package io.awscsi.emulation.ebs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Copies a volume's backing file without writing its zero regions, so a mostly empty 10 GiB volume copies in a few
 * milliseconds and stays sparse. Writes to a temporary file and moves it into place, so a reader never sees half a copy.
 */
final class SparseCopy {

  private static final int CHUNK = 1 << 20;

  private SparseCopy() {}

  static void copy(Path source, Path target) {
    Path temporary = target.resolveSibling("." + target.getFileName() + ".tmp");
    try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
      long size = in.size();
      for (long position = 0; position < size; position += CHUNK) {
        buffer.clear();
        int read = in.read(buffer, position);
        if (read <= 0) {
          break;
        }
        buffer.flip();
        if (!allZero(buffer)) {
          while (buffer.hasRemaining()) {
            out.write(buffer, position + buffer.position());
          }
        }
      }
      // Set the length last: the tail may be a hole.
      if (out.size() < size) {
        out.write(ByteBuffer.allocate(1), size - 1);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + source + " to " + target, e);
    }
    try {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot move the copy into " + target, e);
    }
  }

  private static boolean allZero(ByteBuffer buffer) {
    int end = buffer.limit();
    int i = buffer.position();
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      if (buffer.getLong(i) != 0) {
        return false;
      }
    }
    for (; i < end; i++) {
      if (buffer.get(i) != 0) {
        return false;
      }
    }
    return true;
  }
}
