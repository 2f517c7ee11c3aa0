package io.awscsi.aws.sdk;

import io.awscsi.aws.Environment;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which endpoint each AWS client talks to, and where that choice came from.
 *
 * <p>In order of precedence: an explicit override set in code (tests, the local runtime); for EC2, upstream's
 * {@code AWS_EC2_ENDPOINT}; the SDK's standard {@code AWS_ENDPOINT_URL_<SERVICE>}; the SDK's {@code
 * AWS_ENDPOINT_URL}. The SDK for Java 2.41.24 reads the last two from the process environment by itself, so they are
 * not passed to the client again: they are read here only to decide credentials and to log the endpoint. (The SDK also
 * honours the system properties {@code aws.endpointUrl*} and {@code endpoint_url} in the shared config file, which this
 * class does not see; a client using those gets the default credential chain.)
 */
public final class AwsEndpoints {

  /** The SDK's endpoint variable for every service. */
  public static final String GLOBAL_ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL";

  /** The EC2 endpoint variable of the upstream EBS driver; the SDK does not know it, so it is applied here. */
  public static final String UPSTREAM_EC2_ENDPOINT_VARIABLE = "AWS_EC2_ENDPOINT";

  /** Where an endpoint came from. */
  public enum Source {
    EXPLICIT,
    UPSTREAM_EC2_VARIABLE,
    SERVICE_VARIABLE,
    GLOBAL_VARIABLE
  }

  /** An endpoint other than the service's public AWS one. */
  public record Endpoint(URI uri, Source source, String origin) {

    public Endpoint {
      Objects.requireNonNull(uri, "uri");
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(origin, "origin");
    }

    /** Whether the SDK already applies this endpoint by itself (from the process environment). */
    public boolean appliedBySdk() {
      return source == Source.SERVICE_VARIABLE || source == Source.GLOBAL_VARIABLE;
    }

    /** Whether the endpoint is on this machine (an emulator such as moto), judged without a DNS lookup. */
    public boolean isLoopback() {
      return isLoopbackHost(uri.getHost());
    }
  }

  private final Environment environment;
  private final Map<AwsService, URI> serviceOverrides;
  private final URI overrideForAll;

  private AwsEndpoints(Environment environment, Map<AwsService, URI> serviceOverrides, URI overrideForAll) {
    this.environment = environment;
    this.serviceOverrides = serviceOverrides;
    this.overrideForAll = overrideForAll;
  }

  public static AwsEndpoints fromEnvironment(Environment environment) {
    return new AwsEndpoints(Objects.requireNonNull(environment), new EnumMap<>(AwsService.class), null);
  }

  /** A copy that sends every service to {@code endpoint} (moto serves EC2, EFS and STS on one port). */
  public AwsEndpoints withOverride(URI endpoint) {
    return new AwsEndpoints(environment, new EnumMap<>(serviceOverrides), requireAbsolute(endpoint, "override"));
  }

  /** A copy that sends one service to {@code endpoint}; it wins over {@link #withOverride(URI)}. */
  public AwsEndpoints withOverride(AwsService service, URI endpoint) {
    EnumMap<AwsService, URI> copy = new EnumMap<>(AwsService.class);
    copy.putAll(serviceOverrides);
    copy.put(service, requireAbsolute(endpoint, service.displayName() + " override"));
    return new AwsEndpoints(environment, copy, overrideForAll);
  }

  /**
   * The endpoint the service's client will use, empty for the public AWS endpoint.
   *
   * @throws IllegalArgumentException when a variable holds something that is not an absolute URI (the SDK would
   *     reject it too, later and with less context)
   */
  public Optional<Endpoint> resolve(AwsService service) {
    URI explicit = serviceOverrides.get(service);
    if (explicit != null) {
      return Optional.of(new Endpoint(explicit, Source.EXPLICIT, service.displayName() + " override"));
    }
    if (overrideForAll != null) {
      return Optional.of(new Endpoint(overrideForAll, Source.EXPLICIT, "override"));
    }
    if (service == AwsService.EC2) {
      Optional<Endpoint> upstream =
          fromVariable(UPSTREAM_EC2_ENDPOINT_VARIABLE, Source.UPSTREAM_EC2_VARIABLE);
      if (upstream.isPresent()) {
        return upstream;
      }
    }
    return fromVariable(service.endpointVariable(), Source.SERVICE_VARIABLE)
        .or(() -> fromVariable(GLOBAL_ENDPOINT_VARIABLE, Source.GLOBAL_VARIABLE));
  }

  private Optional<Endpoint> fromVariable(String name, Source source) {
    return environment.get(name).map(value -> new Endpoint(parse(value, name), source, name));
  }

  private static URI parse(String value, String name) {
    try {
      return requireAbsolute(new URI(value), name);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          name + "='" + value + "' is not a valid URL; set it to e.g. http://127.0.0.1:5000 or unset it", e);
    }
  }

  private static URI requireAbsolute(URI uri, String name) {
    Objects.requireNonNull(uri, name);
    if (!uri.isAbsolute() || uri.getHost() == null) {
      throw new IllegalArgumentException(
          name + "='" + uri + "' needs a scheme and a host, e.g. http://127.0.0.1:5000");
    }
    return uri;
  }

  static boolean isLoopbackHost(String host) {
    if (host == null) {
      return false;
    }
    String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (bare.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      // ofLiteral never touches DNS: a name that is not an address literal is simply not loopback here.
      return InetAddress.ofLiteral(bare).isLoopbackAddress();
    } catch (IllegalArgumentException notALiteral) {
      return false;
    }
  }
}
