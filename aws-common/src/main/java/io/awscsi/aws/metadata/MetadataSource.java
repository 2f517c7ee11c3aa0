package io.awscsi.aws.metadata;

/** One place instance metadata can come from (IMDS, the Kubernetes Node object). */
public interface MetadataSource {

  /** The name used in {@code --metadata-sources} and in error messages. */
  String name();

  /**
   * Reads the metadata now; blocking.
   *
   * @throws MetadataUnavailableException with a message saying what was missing or unreachable
   */
  InstanceMetadata fetch() throws MetadataUnavailableException;

  /**
   * {@code known} (this source's earlier answer) with what changes while the instance runs read again: upstream
   * re-reads it on every NodeGetInfo, so ENIs attached after start take their attachment slots. A source that cannot
   * see such changes returns {@code known}; blocking.
   *
   * @throws MetadataUnavailableException when the source no longer answers
   */
  default InstanceMetadata refresh(InstanceMetadata known) throws MetadataUnavailableException {
    return known;
  }
}
