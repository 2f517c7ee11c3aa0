package io.awscsi.efs.fs;

/**
 * What statx says about one entry, links not followed.
 *
 * @param device {@code major:minor} of the file system holding it
 */
public record EntryStatus(Kind kind, long size, String device, long inode, long uid, long gid, int mode) {

  /** The entry's type as far as directory work cares. */
  public enum Kind { DIRECTORY, REGULAR_FILE, SYMBOLIC_LINK, OTHER }
}
