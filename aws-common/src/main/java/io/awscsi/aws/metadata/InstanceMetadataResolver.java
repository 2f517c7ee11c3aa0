package io.awscsi.aws.metadata;

import io.awscsi.aws.Environment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Tries metadata sources in order ({@code --metadata-sources}, default {@value #DEFAULT_SOURCES}) and returns the
 * first answer. When all fail, one exception names what each source said. An answer whose fields are not of their
 * form ({@link MetadataFields}) ends the search: the node must not run under a node id or zone a broken or hostile
 * source made up.
 */
public final class InstanceMetadataResolver implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(InstanceMetadataResolver.class);

  /** Upstream's default order. */
  public static final String DEFAULT_SOURCES = "imds,kubernetes";

  /** The names {@link #parseSourceNames(String)} accepts. */
  public static final Set<String> KNOWN_SOURCES = Set.of(ImdsMetadataSource.NAME, KubernetesMetadataSource.NAME);

  private final List<MetadataSource> sources;
  /** The source whose answer {@link #resolve()} returned last; {@link #refresh} asks it again. */
  private volatile MetadataSource answered;
  /** What {@link #refresh} read last. */
  private volatile InstanceMetadata latest;

  public InstanceMetadataResolver(List<MetadataSource> sources) {
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("at least one metadata source is needed");
    }
    this.sources = List.copyOf(sources);
  }

  /**
   * The standard sources named in {@code sourceNames}: IMDS (skipped when {@value
   * ImdsMetadataSource#DISABLED_VARIABLE}=true) and the Kubernetes Node.
   *
   * @param kubernetes asked for a client only if the Kubernetes source is reached
   */
  public static InstanceMetadataResolver standard(
      String sourceNames, Environment environment, Supplier<KubernetesClient> kubernetes) {
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(kubernetes, "kubernetes");
    return fromNames(
        sourceNames,
        name ->
            switch (name) {
              case ImdsMetadataSource.NAME -> ImdsMetadataSource.builder().environment(environment).build();
              case KubernetesMetadataSource.NAME -> new KubernetesMetadataSource(kubernetes, environment);
              default -> throw new IllegalStateException("unreachable: " + name);
            });
  }

  /** Sources built by {@code factory} for each name in {@code sourceNames}, in that order. */
  public static InstanceMetadataResolver fromNames(
      String sourceNames, Function<String, MetadataSource> factory) {
    return new InstanceMetadataResolver(parseSourceNames(sourceNames).stream().map(factory).toList());
  }

  /**
   * Splits a comma-separated list such as {@code imds,kubernetes}, dropping blanks and repeats.
   *
   * @throws IllegalArgumentException for an empty list or an unknown name, listing the valid ones
   */
  public static List<String> parseSourceNames(String sourceNames) {
    Set<String> names = new LinkedHashSet<>();
    for (String raw : Objects.requireNonNull(sourceNames, "sourceNames").split(",")) {
      String name = raw.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (!KNOWN_SOURCES.contains(name)) {
        throw new IllegalArgumentException(
            "unknown metadata source '" + name + "' in --metadata-sources=" + sourceNames + "; valid: "
                + String.join(", ", KNOWN_SOURCES.stream().sorted().toList()));
      }
      names.add(name);
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException(
          "--metadata-sources is empty; use e.g. " + DEFAULT_SOURCES);
    }
    return List.copyOf(names);
  }

  public List<String> sourceNames() {
    return sources.stream().map(MetadataSource::name).toList();
  }

  /**
   * Asks each source in turn; blocking.
   *
   * @throws MetadataUnavailableException when every source failed, with each source's reason
   */
  public InstanceMetadata resolve() throws MetadataUnavailableException {
    List<String> failures = new ArrayList<>();
    for (MetadataSource source : sources) {
      try {
        InstanceMetadata metadata = MetadataFields.check(source.name(), source.fetch());
        LOG.info(
            "Instance metadata from {}: instance {} ({}) in {}, {} ENI(s), {} boot EBS mapping(s){}",
            source.name(),
            metadata.instanceId(),
            metadata.instanceType(),
            metadata.availabilityZone(),
            metadata.eniCount(),
            metadata.ebsBlockDeviceMappingCount(),
            metadata.outpost().map(o -> ", Outpost " + o.outpostId()).orElse(""));
        answered = source;
        latest = null;
        return metadata;
      } catch (InvalidMetadataException e) {
        // Not a reason to ask the next source: an answer this wrong is broken or forged, and the node stops here.
        LOG.error("Refusing to start: {}", e.getMessage());
        throw new MetadataUnavailableException(e.getMessage(), e);
      } catch (MetadataUnavailableException e) {
        LOG.info("Metadata source {} unavailable: {}", source.name(), e.getMessage());
        failures.add(source.name() + ": " + e.getMessage());
      } catch (RuntimeException e) {
        // A source must not take startup down with an unexpected exception while another could still answer.
        LOG.warn("Metadata source {} failed unexpectedly", source.name(), e);
        failures.add(source.name() + ": unexpected " + e);
      }
    }
    throw new MetadataUnavailableException(
        "no instance metadata from any source ("
            + String.join(", ", sourceNames())
            + "): "
            + String.join("; ", failures)
            + ". Run on EC2 with IMDS reachable, or set "
            + KubernetesMetadataSource.NODE_NAME_VARIABLE
            + " and allow the node service account to get its Node");
  }

  /**
   * {@code known}, the answer of {@link #resolve()}, with the counts that change while the node runs (ENIs) read
   * again from the source that gave it. When that source fails now, the last count read, as upstream goes on with
   * its cached values: a node keeps its last count rather than failing NodeGetInfo.
   */
  public InstanceMetadata refresh(InstanceMetadata known) {
    MetadataSource source = answered;
    if (source == null) {
      return known;
    }
    InstanceMetadata last = latest != null ? latest : known;
    try {
      InstanceMetadata fresh = source.refresh(known);
      if (fresh.eniCount() != last.eniCount()) {
        LOG.info("Instance metadata from {}: {} ENI(s) now, {} before", source.name(), fresh.eniCount(),
            last.eniCount());
      }
      latest = fresh;
      return fresh;
    } catch (MetadataUnavailableException | RuntimeException e) {
      LOG.warn("Reading the ENI count again from {} failed, keeping {}: {}", source.name(), last.eniCount(),
          e.getMessage());
      return known.withEniCount(last.eniCount());
    }
  }

  @Override
  public String toString() {
    return sources.stream()
        .map(MetadataSource::name)
        .collect(Collectors.joining(",", "InstanceMetadataResolver[", "]"));
  }

  /** Closes the sources that hold resources (the IMDS HTTP client). */
  @Override
  public void close() {
    for (MetadataSource source : sources) {
      if (source instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          LOG.debug("Closing metadata source {} failed", source.name(), e);
        }
      }
    }
  }
}
