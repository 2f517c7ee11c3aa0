package io.awscsi.ebs.limits;

/**
 * How many EBS volumes an instance type can attach, before subtracting the root volume and other attachments.
 *
 * @param shared whether ENIs (and NVMe instance store volumes) take slots from the same budget; {@code false} for a
 *     dedicated EBS limit
 */
public record AttachmentLimit(int maxAttachments, boolean shared) {

  /** The limit of a Nitro type the table does not list. */
  public static final AttachmentLimit NITRO_DEFAULT = new AttachmentLimit(27, true);

  /** Xen instance types: 39 EBS volumes, not shared with ENIs (upstream treats them as dedicated). */
  public static final AttachmentLimit XEN = new AttachmentLimit(39, false);

  public AttachmentLimit {
    if (maxAttachments < 1) {
      throw new IllegalArgumentException("maxAttachments must be >= 1, was " + maxAttachments);
    }
  }

  public static AttachmentLimit shared(int maxAttachments) {
    return new AttachmentLimit(maxAttachments, true);
  }

  public static AttachmentLimit dedicated(int maxAttachments) {
    return new AttachmentLimit(maxAttachments, false);
  }
}
