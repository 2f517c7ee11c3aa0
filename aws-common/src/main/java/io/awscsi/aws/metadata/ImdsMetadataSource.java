package io.awscsi.aws.metadata;

import io.awscsi.aws.Environment;
import io.awscsi.aws.sdk.PlainHttpSdkClient;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.core.document.Document;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.imds.Ec2MetadataClient;
import software.amazon.awssdk.imds.Ec2MetadataClientException;
import software.amazon.awssdk.imds.Ec2MetadataResponse;

/**
 * Instance metadata from the EC2 instance metadata service through the SDK's {@link Ec2MetadataClient} (IMDSv2
 * session tokens). Timeouts are short and retries few, so that off EC2 (or with the hop limit too low for a container)
 * the resolver falls back to the next source within a few seconds. IMDS is plain HTTP, so the SDK client sends through
 * {@link PlainHttpSdkClient}, which spares the node the SSL set-up of the SDK's own HTTP clients.
 */
public final class ImdsMetadataSource implements MetadataSource, AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(ImdsMetadataSource.class);

  public static final String NAME = "imds";

  /** Set to {@code true} to skip IMDS entirely (the AWS SDKs' own switch). */
  public static final String DISABLED_VARIABLE = "AWS_EC2_METADATA_DISABLED";

  /** The SDK's variable for a non-default IMDS endpoint; read here so tests can inject it. */
  public static final String ENDPOINT_VARIABLE = "AWS_EC2_METADATA_SERVICE_ENDPOINT";

  static final String IDENTITY_DOCUMENT_PATH = "/latest/dynamic/instance-identity/document";
  static final String ZONE_ID_PATH = "/latest/meta-data/placement/availability-zone-id";
  static final String MACS_PATH = "/latest/meta-data/network/interfaces/macs";
  static final String BLOCK_DEVICE_MAPPING_PATH = "/latest/meta-data/block-device-mapping";
  static final String OUTPOST_ARN_PATH = "/latest/meta-data/outpost-arn";

  private static final Pattern MAC_ADDRESS = Pattern.compile("(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}");

  private final Environment environment;
  private final URI endpoint;
  private final PlainHttpSdkClient httpClient;
  private final Ec2MetadataClient client;

  private ImdsMetadataSource(Builder builder) {
    this.environment = builder.environment;
    this.endpoint =
        builder.endpoint != null
            ? builder.endpoint
            : environment.get(ENDPOINT_VARIABLE).map(ImdsMetadataSource::endpointFromVariable).orElse(null);
    this.httpClient =
        new PlainHttpSdkClient(new PlainHttpSdkClient.Timeouts(builder.connectTimeout, builder.readTimeout));
    Ec2MetadataClient.Builder client =
        Ec2MetadataClient.builder()
            .httpClient(httpClient)
            .retryPolicy(retry -> retry.numRetries(builder.retries));
    if (endpoint != null) {
      client.endpoint(endpoint);
    }
    this.client = client.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public InstanceMetadata fetch() throws MetadataUnavailableException {
    requireEnabled();
    Document document = read(IDENTITY_DOCUMENT_PATH).asDocument();
    String instanceId = requiredField(document, "instanceId");
    String instanceType = requiredField(document, "instanceType");
    String region = requiredField(document, "region");
    String zone = requiredField(document, "availabilityZone");
    // The rest at once: each read is a round trip, and a node is not ready before all are answered. The document
    // was read first, so the session token they share is already there.
    InstanceMetadata metadata;
    try (ExecutorService reads = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Integer> enis = reads.submit(this::attachedEniCount);
      Future<Integer> ebsMappings = reads.submit(() -> countEbsMappings(read(BLOCK_DEVICE_MAPPING_PATH).asString()));
      Future<String> zoneId = reads.submit(this::zoneId);
      Future<OutpostArn> outpost = reads.submit(this::outpostArn);
      metadata = new InstanceMetadata(instanceId, instanceType, region, zone, await(zoneId), await(enis),
          await(ebsMappings), await(outpost));
    }
    LOG.debug("IMDS metadata: {}", metadata);
    return metadata;
  }

  private static <T> T await(Future<T> read) throws MetadataUnavailableException {
    try {
      return read.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataUnavailableException("interrupted while reading instance metadata", e);
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case MetadataUnavailableException unavailable -> throw unavailable;
        case RuntimeException runtime -> throw runtime;
        case Error error -> throw error;
        default -> throw new MetadataUnavailableException("reading instance metadata failed: " + e.getCause(), e);
      }
    }
  }

  /** The number of network interfaces attached now (upstream re-reads it on every NodeGetInfo). */
  public int attachedEniCount() throws MetadataUnavailableException {
    requireEnabled();
    return countMacAddresses(read(MACS_PATH).asString());
  }

  /**
   * The ENI count read again, as upstream's UpdateMetadata does; the block device mappings are not, because IMDS
   * reports them as they were when the instance started.
   */
  @Override
  public InstanceMetadata refresh(InstanceMetadata known) throws MetadataUnavailableException {
    return known.withEniCount(attachedEniCount());
  }

  @Override
  public void close() {
    client.close();
    // The SDK client leaves an HTTP client it was given open.
    httpClient.close();
  }

  private void requireEnabled() throws MetadataUnavailableException {
    if (environment.isTrue(DISABLED_VARIABLE)) {
      throw new MetadataUnavailableException("skipped because " + DISABLED_VARIABLE + "=true");
    }
  }

  /** The zone ID is a bonus (upstream does not read it): any failure leaves it unknown. */
  private String zoneId() {
    try {
      return client.get(ZONE_ID_PATH).asString().trim();
    } catch (SdkException e) {
      LOG.debug("IMDS gave no availability-zone-id: {}", e.getMessage());
      return null;
    }
  }

  /** 404 means "not on an Outpost"; any other failure is an error, as upstream treats it. */
  private OutpostArn outpostArn() throws MetadataUnavailableException {
    String arn;
    try {
      arn = client.get(OUTPOST_ARN_PATH).asString();
    } catch (Ec2MetadataClientException e) {
      if (e.statusCode() == 404) {
        return null;
      }
      throw unavailable(OUTPOST_ARN_PATH, e);
    } catch (SdkException e) {
      throw unavailable(OUTPOST_ARN_PATH, e);
    }
    OutpostArn parsed = OutpostArn.parse(arn).orElse(null);
    if (parsed == null) {
      LOG.warn("IMDS outpost-arn '{}' is not an Outpost ARN; the node reports no Outpost topology", arn);
    } else {
      LOG.info("Running on Outpost {}", parsed);
    }
    return parsed;
  }

  private Ec2MetadataResponse read(String path) throws MetadataUnavailableException {
    try {
      return client.get(path);
    } catch (SdkException e) {
      throw unavailable(path, e);
    }
  }

  private MetadataUnavailableException unavailable(String path, SdkException e) {
    String where = endpoint != null ? endpoint.toString() : "the default IMDS endpoint (169.254.169.254)";
    return new MetadataUnavailableException(
        "no answer from "
            + where
            + " for "
            + path
            + ": "
            + e.getMessage()
            + " (on EC2, a container needs an IMDSv2 hop limit of 2 or hostNetwork)",
        e);
  }

  private static String requiredField(Document document, String field) throws MetadataUnavailableException {
    if (document != null && document.isMap()) {
      Map<String, Document> fields = document.asMap();
      Document value = fields.get(field);
      if (value != null && value.isString() && !value.asString().isBlank()) {
        return value.asString().trim();
      }
    }
    throw new MetadataUnavailableException(
        "the instance identity document (" + IDENTITY_DOCUMENT_PATH + ") has no " + field);
  }

  private static URI endpointFromVariable(String value) {
    try {
      URI uri = URI.create(value);
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("no host");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ENDPOINT_VARIABLE + "='" + value + "' is not a URL such as http://169.254.169.254; fix or unset it", e);
    }
  }

  /** MAC addresses in a {@code network/interfaces/macs} listing, one per attached ENI. */
  static int countMacAddresses(String listing) {
    Matcher m = MAC_ADDRESS.matcher(listing);
    int count = 0;
    while (m.find()) {
      count++;
    }
    return count;
  }

  /**
   * EBS entries ({@code ebs1}, {@code ebs2} ...) in a {@code block-device-mapping} listing; {@code ami} and {@code
   * root} (the root volume), {@code ephemeralN} and {@code swap} are not counted.
   */
  static int countEbsMappings(String listing) {
    return (int) listing.lines().map(String::trim).filter(line -> line.startsWith("ebs")).count();
  }

  /** Settings for {@link ImdsMetadataSource}. */
  public static final class Builder {
    private Environment environment = Environment.empty();
    private URI endpoint;
    private Duration connectTimeout = Duration.ofSeconds(1);
    private Duration readTimeout = Duration.ofSeconds(2);
    private int retries = 1;

    private Builder() {}

    /** Where {@value #DISABLED_VARIABLE} and {@value #ENDPOINT_VARIABLE} are read. */
    public Builder environment(Environment environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      return this;
    }

    /** The IMDS base URL, e.g. {@code http://127.0.0.1:1338} for amazon-ec2-metadata-mock. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = Objects.requireNonNull(readTimeout, "readTimeout");
      return this;
    }

    /** Retries after the first attempt of each request (token and metadata alike). */
    public Builder retries(int retries) {
      if (retries < 0) {
        throw new IllegalArgumentException("retries must be >= 0, was " + retries);
      }
      this.retries = retries;
      return this;
    }

    public ImdsMetadataSource build() {
      return new ImdsMetadataSource(this);
    }
  }
}
