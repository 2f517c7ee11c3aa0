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
}
