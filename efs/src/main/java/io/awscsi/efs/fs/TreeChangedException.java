package io.awscsi.efs.fs;

import java.nio.file.FileSystemException;

/**
 * A tree kept changing under a removal (entries swapped or added faster than they were removed): nothing outside it
 * was touched, and the removal may be retried.
 */
public final class TreeChangedException extends FileSystemException {

  public TreeChangedException(String path, String reason) {
    super(path, null, reason);
  }
}
