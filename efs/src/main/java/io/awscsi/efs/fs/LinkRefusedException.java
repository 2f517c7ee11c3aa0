package io.awscsi.efs.fs;

import java.nio.file.FileSystemException;

/**
 * A path component that must be a real directory is a symbolic link (or was swapped for one): the operation stops
 * there instead of following it, wherever it points.
 */
public final class LinkRefusedException extends FileSystemException {

  public LinkRefusedException(String path) {
    super(path, null, "is a symbolic link; refusing to follow it");
  }
}
