package io.awscsi.core.host;

/**
 * The kernel refused to grow a mounted ext3/ext4 file system: resize2fs needs CAP_SYS_RESOURCE for the online resize
 * ioctl. The file system is unchanged; it can still be grown offline (unmounted) or after granting the capability.
 */
public final class OnlineResizeNotPermittedException extends RuntimeException {

  public OnlineResizeNotPermittedException(String message, CommandException.Failed cause) {
    super(message, cause);
  }
}
