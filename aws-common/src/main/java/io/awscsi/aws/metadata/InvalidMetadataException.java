package io.awscsi.aws.metadata;

/**
 * A metadata source answered, but a field is not of its form ({@link MetadataFields}). Unlike an unreachable source
 * this is not a reason to ask the next one: the answer is broken or forged, and the node refuses to start.
 */
public final class InvalidMetadataException extends Exception {

  private final String source;
  private final String field;

  public InvalidMetadataException(String source, String field, String message) {
    super(message);
    this.source = source;
    this.field = field;
  }

  public String source() {
    return source;
  }

  public String field() {
    return field;
  }
}
