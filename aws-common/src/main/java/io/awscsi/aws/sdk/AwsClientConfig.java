package io.awscsi.aws.sdk;

import io.awscsi.aws.Environment;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The one place that configures AWS SDK clients (EC2, EFS, STS): region, endpoint, credentials, HTTP client and user
 * agent. Callers build their own client from a builder this class has configured:
 *
 * <pre>{@code
 * AwsClientConfig config = AwsClientConfig.builder(Environment.system()).regionFallback(metadata::region).build();
 * Ec2Client ec2 = config.configure(Ec2Client.builder(), AwsService.EC2).build();
 * }</pre>
 *
 * <p>Region: explicit, else {@code AWS_REGION}, else {@code AWS_DEFAULT_REGION}, else the fallback (instance
 * metadata), asked only when needed so a controller with {@code AWS_REGION} never touches metadata. Endpoint: see
 * {@link AwsEndpoints}. Credentials: the SDK's default chain, except that a loopback endpoint (an emulator such as
 * moto) with no credentials configured gets fixed dummy keys, so a local run works on a machine without AWS
 * credentials and without waiting for the chain to probe IMDS.
 */
public final class AwsClientConfig {

  private static final Logger LOG = LogManager.getLogger(AwsClientConfig.class);

  public static final String REGION_VARIABLE = "AWS_REGION";
  public static final String DEFAULT_REGION_VARIABLE = "AWS_DEFAULT_REGION";
  public static final String DEFAULT_USER_AGENT_SUFFIX = "aws-csi-java";

  /** Variables through which the default credential chain finds credentials; any of them means "configured". */
  static final List<String> CREDENTIAL_VARIABLES =
      List.of(
          "AWS_ACCESS_KEY_ID",
          "AWS_PROFILE",
          "AWS_WEB_IDENTITY_TOKEN_FILE",
          "AWS_CONTAINER_CREDENTIALS_FULL_URI",
          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");

  /** Dummy keys for emulators, which accept any signature. */
  static final AwsBasicCredentials EMULATOR_CREDENTIALS = AwsBasicCredentials.create("test", "test");

  private final Region region;
  private final AwsEndpoints endpoints;
  private final Environment environment;
  private final String userAgentSuffix;
  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final Supplier<AwsCredentialsProvider> defaultCredentials;

  private AwsClientConfig(Builder builder, Region region) {
    this.region = region;
    this.environment = builder.environment;
    this.endpoints = builder.endpoints;
    this.userAgentSuffix = builder.userAgentSuffix;
    this.connectTimeout = builder.connectTimeout;
    this.socketTimeout = builder.socketTimeout;
    this.defaultCredentials = memoize(() -> DefaultCredentialsProvider.builder().build());
  }

  public static Builder builder(Environment environment) {
    return new Builder(environment);
  }

  public Region region() {
    return region;
  }

  public AwsEndpoints endpoints() {
    return endpoints;
  }

  public String userAgentSuffix() {
    return userAgentSuffix;
  }

  /** Whether the client for {@code service} gets the emulator's dummy keys instead of the default chain. */
  public boolean usesEmulatorCredentials(AwsService service) {
    boolean loopback = endpoints.resolve(service).map(AwsEndpoints.Endpoint::isLoopback).orElse(false);
    return loopback && CREDENTIAL_VARIABLES.stream().noneMatch(environment::isSet);
  }

  public AwsCredentialsProvider credentialsFor(AwsService service) {
    return usesEmulatorCredentials(service)
        ? StaticCredentialsProvider.create(EMULATOR_CREDENTIALS)
        : defaultCredentials.get();
  }

  /** Configures {@code builder} for {@code service}; the caller may customise it further, then builds the client. */
  public <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> B configure(
      B builder, AwsService service) {
    return configure(builder, service, override -> {});
  }

  /**
   * As {@link #configure(AwsClientBuilder, AwsService)}, with additions to the override configuration (retry strategy,
   * metric publishers, timeouts); setting the override configuration on the builder afterwards would drop the user
   * agent set here.
   */
  public <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> B configure(
      B builder, AwsService service, Consumer<ClientOverrideConfiguration.Builder> overrides) {
    Optional<AwsEndpoints.Endpoint> endpoint = endpoints.resolve(service);
    endpoint.filter(e -> !e.appliedBySdk()).ifPresent(e -> builder.endpointOverride(e.uri()));
    builder
        .region(region)
        .credentialsProvider(credentialsFor(service))
        .httpClientBuilder(
            UrlConnectionHttpClient.builder().connectionTimeout(connectTimeout).socketTimeout(socketTimeout));
    ClientOverrideConfiguration.Builder override =
        ClientOverrideConfiguration.builder()
            .putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_SUFFIX, userAgentSuffix);
    overrides.accept(override);
    builder.overrideConfiguration(override.build());
    LOG.info(
        "AWS {} client: region {}, endpoint {}, credentials {}",
        service.displayName(),
        region.id(),
        endpoint.map(e -> e.uri() + " (from " + e.origin() + ")").orElse("AWS default"),
        usesEmulatorCredentials(service) ? "dummy keys (loopback emulator)" : "default chain");
    return builder;
  }

  private static <T> Supplier<T> memoize(Supplier<T> supplier) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = supplier.get();
        }
        return value;
      }
    };
  }

  /** Settings for {@link AwsClientConfig}; every one is optional. */
  public static final class Builder {
    private final Environment environment;
    private AwsEndpoints endpoints;
    private String region;
    private Supplier<String> regionFallback;
    private String userAgentSuffix = DEFAULT_USER_AGENT_SUFFIX;
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration socketTimeout = Duration.ofSeconds(30);

    private Builder(Environment environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      this.endpoints = AwsEndpoints.fromEnvironment(environment);
    }

    /** A region that wins over the environment. */
    public Builder region(String region) {
      this.region = region;
      return this;
    }

    /** Asked for the region only when neither {@link #region(String)} nor the environment gives one. */
    public Builder regionFallback(Supplier<String> regionFallback) {
      this.regionFallback = regionFallback;
      return this;
    }

    /** Sends every service to {@code endpoint}, whatever the environment says. */
    public Builder endpointOverride(URI endpoint) {
      this.endpoints = endpoints.withOverride(endpoint);
      return this;
    }

    public Builder endpointOverride(AwsService service, URI endpoint) {
      this.endpoints = endpoints.withOverride(service, endpoint);
      return this;
    }

    /** Appended to the SDK's user agent, e.g. {@code aws-csi-java/0.1.0 ebs.csi.aws.com} plus upstream's extra. */
    public Builder userAgentSuffix(String userAgentSuffix) {
      this.userAgentSuffix = Objects.requireNonNull(userAgentSuffix, "userAgentSuffix");
      return this;
    }

    /**
     * Upstream's {@code --user-agent-extra}: appended, after a space, to the user agent suffix (its chart passes
     * {@code helm}); blank adds nothing.
     */
    public Builder userAgentExtra(String extra) {
      String e = Objects.requireNonNull(extra, "extra").strip();
      if (!e.isEmpty()) {
        this.userAgentSuffix = userAgentSuffix + " " + e;
      }
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    public Builder socketTimeout(Duration socketTimeout) {
      this.socketTimeout = Objects.requireNonNull(socketTimeout, "socketTimeout");
      return this;
    }

    /**
     * @throws IllegalStateException when no region can be found, naming what was tried
     */
    public AwsClientConfig build() {
      return new AwsClientConfig(this, Region.of(resolveRegion()));
    }

    private String resolveRegion() {
      if (region != null && !region.isBlank()) {
        return region.trim();
      }
      Optional<String> fromEnvironment =
          environment.get(REGION_VARIABLE).or(() -> environment.get(DEFAULT_REGION_VARIABLE));
      if (fromEnvironment.isPresent()) {
        return fromEnvironment.get();
      }
      String tried = REGION_VARIABLE + " and " + DEFAULT_REGION_VARIABLE + " are unset";
      if (regionFallback == null) {
        throw new IllegalStateException("AWS region unknown: " + tried + "; set " + REGION_VARIABLE);
      }
      String fallback;
      try {
        fallback = regionFallback.get();
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "AWS region unknown: "
                + tried
                + " and instance metadata failed ("
                + e.getMessage()
                + "); set "
                + REGION_VARIABLE
                + " or make instance metadata reachable",
            e);
      }
      if (fallback == null || fallback.isBlank()) {
        throw new IllegalStateException(
            "AWS region unknown: " + tried + " and instance metadata gave none; set " + REGION_VARIABLE);
      }
      return fallback.trim();
    }
  }
}
