package io.awscsi.aws.metadata;

/** A metadata source could not give the instance's metadata; the message says why and what to check. */
public final class MetadataUnavailableException extends Exception {

  public MetadataUnavailableException(String message) {
    super(message);
  }

  public MetadataUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
