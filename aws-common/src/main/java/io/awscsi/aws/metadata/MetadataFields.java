package io.awscsi.aws.metadata;

import java.util.regex.Pattern;

/**
 * What each field of {@link InstanceMetadata} may hold when it comes from IMDS or the Kubernetes Node: checked as
 * strictly as a request field, because the instance id becomes the node id (and so part of VolumeAttachments, paths
 * and tags) and the zone and region become topology. A source that answers anything else is broken or hostile, and the
 * node refuses to start naming the source and the field rather than try the next source.
 */
public final class MetadataFields {

  /** {@code i-} and 8 or 17 hex digits; Snow devices' {@code s.i-...} and SageMaker HyperPod's prefix as upstream. */
  static final Pattern INSTANCE_ID =
      Pattern.compile("(?:s\\.|hyperpod-[a-z0-9]{1,64}-)?i-(?:[0-9a-f]{8}|[0-9a-f]{17})");
  static final Pattern REGION = Pattern.compile("[a-z]{2}(?:-[a-z]{1,16}){1,3}-[0-9]{1,2}");
  /** After the region: a zone letter, or a Local Zone / Wavelength suffix such as {@code -lax-1a}. */
  static final Pattern ZONE_SUFFIX = Pattern.compile("[a-z]|(?:-[a-z0-9]{1,16}){1,4}");
  static final Pattern ZONE_ID = Pattern.compile("[a-z0-9]{2,12}(?:-[a-z0-9]{1,12}){1,3}");
  static final Pattern INSTANCE_TYPE = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}\\.[a-z0-9-]{1,32}");
  /** How much of a refused value a message quotes (escaped by the log); the rest is counted, not shown. */
  private static final int QUOTED = 80;

  private MetadataFields() {}

  /**
   * {@code metadata} when every field has its form.
   *
   * @param source the source's name ({@code imds}, {@code kubernetes}) for the message
   * @throws InvalidMetadataException naming the source and the first field that does not
   */
  public static InstanceMetadata check(String source, InstanceMetadata metadata) throws InvalidMetadataException {
    require(source, "instanceId", metadata.instanceId(), INSTANCE_ID, "i- and 8 or 17 hex digits");
    require(source, "instanceType", metadata.instanceType(), INSTANCE_TYPE, "an EC2 instance type such as m5.large");
    require(source, "region", metadata.region(), REGION, "an AWS region such as us-east-1");
    String zone = metadata.availabilityZone();
    if (!zone.startsWith(metadata.region())
        || !ZONE_SUFFIX.matcher(zone.substring(metadata.region().length())).matches()) {
      throw invalid(source, "availabilityZone", zone, "a zone of region " + metadata.region() + " such as "
          + metadata.region() + "a");
    }
    if (metadata.availabilityZoneId() != null) {
      require(source, "availabilityZoneId", metadata.availabilityZoneId(), ZONE_ID, "a zone id such as use1-az4");
    }
    return metadata;
  }

  private static void require(String source, String field, String value, Pattern form, String expected)
      throws InvalidMetadataException {
    if (!form.matcher(value).matches()) {
      throw invalid(source, field, value, expected);
    }
  }

  static InvalidMetadataException invalid(String source, String field, String value, String expected) {
    String shown = value.length() <= QUOTED ? value
        : value.substring(0, QUOTED) + "... (" + value.length() + " characters)";
    return new InvalidMetadataException(source, field, "instance metadata source " + source + " gave " + field
        + " \"" + shown + "\", which is not " + expected + "; refusing to use it (a node id, zone or path must not "
        + "come from a malformed answer)");
  }
}
