package io.awscsi.launcher.kube;

import io.awscsi.aws.Environment;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Removes the startup taint {@code <driver>/agent-not-ready} (any effect) from this node once the driver is
 * registered there, so pods needing the driver are not scheduled before it can serve them (kubernetes#95911).
 *
 * <p>Runs on a virtual thread, retrying with backoff until a deadline (about 10 minutes, as upstream). Skipped, with
 * one log line, when {@value #DISABLE_VARIABLE} is set, when {@value #NODE_NAME_VARIABLE} is missing, or when the API
 * answers 403 (the service account has no RBAC for it). The patch is a JSON patch whose {@code test} operation checks
 * {@code /spec/taints} is still what was read, so a taint another controller adds meanwhile is not lost: the patch
 * fails and the remover reads the node again.
 */
public final class StartupTaintRemover implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(StartupTaintRemover.class);

  /** Set (to anything but {@code false}) to leave the taint alone, as upstream's opt-out. */
  public static final String DISABLE_VARIABLE = StartupTaintSettings.DISABLE_VARIABLE;

  public static final String NODE_NAME_VARIABLE = StartupTaintSettings.NODE_NAME_VARIABLE;

  private static final String TAINTS_PATH = "/spec/taints";

  private final StartupTaintSettings settings;
  private final Supplier<KubernetesClient> client;
  private final Environment environment;
  private Thread thread;

  /**
   * @param client asked for the client on the remover's thread only, so building it cannot delay startup
   */
  public StartupTaintRemover(
      StartupTaintSettings settings, Supplier<KubernetesClient> client, Environment environment) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.client = Objects.requireNonNull(client, "client");
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  /** Starts removal on a virtual thread and returns at once; the future completes with the outcome. */
  public synchronized CompletableFuture<TaintRemovalOutcome> start() {
    if (thread != null) {
      throw new IllegalStateException("the startup taint remover was already started");
    }
    CompletableFuture<TaintRemovalOutcome> outcome = new CompletableFuture<>();
    thread =
        Thread.ofVirtual()
            .name("startup-taint-remover")
            .start(
                () -> {
                  try {
                    outcome.complete(run());
                  } catch (RuntimeException | Error e) {
                    LOG.error("Startup taint removal failed unexpectedly", e);
                    outcome.completeExceptionally(e);
                  }
                });
    return outcome;
  }

  /** Stops a started remover; it ends with {@link TaintRemovalOutcome.GaveUp}. */
  @Override
  public synchronized void close() {
    if (thread != null) {
      thread.interrupt();
    }
  }

  /** Removes the taint on the calling thread; blocks until done, skipped, or the deadline passes. */
  public TaintRemovalOutcome run() {
    String taintKey = settings.taintKey();
    Optional<String> skip = StartupTaintSettings.skipReason(environment);
    if (skip.isPresent()) {
      return skipped(skip.get());
    }
    Optional<String> nodeName = environment.get(NODE_NAME_VARIABLE);
    long deadline = System.nanoTime() + settings.deadline().toNanos();
    Duration delay = settings.initialDelay();
    int attempts = 0;
    boolean waitingLogged = false;
    while (true) {
      attempts++;
      Step step;
      try {
        step = attempt(nodeName.get(), taintKey, attempts);
      } catch (KubernetesClientException e) {
        if (e.getCode() == 403) {
          return skipped(
              "the Kubernetes API refused access (403 Forbidden: "
                  + e.getMessage()
                  + "); grant the node service account get on nodes and csinodes and patch on nodes to have "
                  + taintKey
                  + " removed");
        }
        step = new Retry(describe(e));
      } catch (RuntimeException e) {
        // Building the client or reaching the API failed; it may come up later.
        step = new Retry(describe(e));
      }
      if (step instanceof Done done) {
        return done.outcome();
      }
      String problem = ((Retry) step).problem();
      if (!waitingLogged) {
        LOG.info("Startup taint {} stays for now: {}; retrying until {} has passed", taintKey, problem,
            settings.deadline());
        waitingLogged = true;
      } else {
        LOG.debug("Startup taint {} attempt {}: {}", taintKey, attempts, problem);
      }
      if (System.nanoTime() + delay.toNanos() > deadline) {
        LOG.warn(
            "Gave up removing startup taint {} from node {} after {} attempts: {}; remove it by hand with "
                + "kubectl taint node {} {}-",
            taintKey, nodeName.get(), attempts, problem, nodeName.get(), taintKey);
        return new TaintRemovalOutcome.GaveUp(problem, attempts);
      }
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LOG.info("Startup taint removal stopped before {} was removed: {}", taintKey, problem);
        return new TaintRemovalOutcome.GaveUp("stopped: " + problem, attempts);
      }
      delay = next(delay);
    }
  }

  private Step attempt(String nodeName, String taintKey, int attempt) {
    KubernetesClient api = client.get();
    Node node = api.nodes().withName(nodeName).get();
    if (node == null) {
      return new Retry("Node " + nodeName + " does not exist");
    }
    List<Taint> taints =
        node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    List<Taint> kept = taints.stream().filter(t -> !taintKey.equals(t.getKey())).toList();
    if (kept.size() == taints.size()) {
      LOG.info("Node {} does not carry startup taint {}; nothing to remove", nodeName, taintKey);
      return new Done(new TaintRemovalOutcome.NotTainted(nodeName));
    }
    Optional<String> notRegistered = registrationProblem(api, nodeName);
    if (notRegistered.isPresent()) {
      return new Retry(notRegistered.get());
    }
    try {
      api.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON), removalPatch(api, taints, kept));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        throw e;
      }
      // Most likely the test operation failed: the taints changed since they were read.
      return new Retry("patching Node " + nodeName + " failed (" + describe(e) + "); reading it again");
    }
    LOG.info("Removed startup taint {} from node {} (attempt {})", taintKey, nodeName, attempt);
    return new Done(new TaintRemovalOutcome.Removed(nodeName, attempt));
  }

  private Optional<String> registrationProblem(KubernetesClient api, String nodeName) {
    CSINode csiNode = api.storage().v1().csiNodes().withName(nodeName).get();
    if (csiNode == null) {
      return Optional.of("CSINode " + nodeName + " does not exist yet (kubelet creates it when a driver registers)");
    }
    List<CSINodeDriver> drivers =
        csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null
            ? List.of()
            : csiNode.getSpec().getDrivers();
    Optional<CSINodeDriver> driver =
        drivers.stream().filter(d -> settings.driverName().equals(d.getName())).findFirst();
    if (driver.isEmpty()) {
      return Optional.of("driver " + settings.driverName() + " is not registered in CSINode " + nodeName + " yet");
    }
    if (settings.condition() == RegistrationCondition.ALLOCATABLE_COUNT_SET
        && (driver.get().getAllocatable() == null || driver.get().getAllocatable().getCount() == null)) {
      return Optional.of(
          "driver " + settings.driverName() + " is registered in CSINode " + nodeName
              + " without allocatable.count yet");
    }
    return Optional.empty();
  }

  /** test-then-replace on /spec/taints: applied only if the taints are still exactly those read. */
  private static String removalPatch(KubernetesClient api, List<Taint> current, List<Taint> kept) {
    Map<String, Object> test = new LinkedHashMap<>();
    test.put("op", "test");
    test.put("path", TAINTS_PATH);
    test.put("value", current);
    Map<String, Object> replace = new LinkedHashMap<>();
    replace.put("op", "replace");
    replace.put("path", TAINTS_PATH);
    replace.put("value", kept);
    return api.getKubernetesSerialization().asJson(List.of(test, replace));
  }

  private Duration next(Duration delay) {
    long nanos = (long) Math.min(delay.toNanos() * settings.backoffFactor(), settings.maxDelay().toNanos());
    return Duration.ofNanos(nanos);
  }

  private static TaintRemovalOutcome skipped(String reason) {
    LOG.info("Startup taint removal skipped: {}", reason);
    return new TaintRemovalOutcome.Skipped(reason);
  }

  private static String describe(RuntimeException e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      return "HTTP " + k.getCode() + ": " + k.getMessage();
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private sealed interface Step {}

  private record Done(TaintRemovalOutcome outcome) implements Step {}

  private record Retry(String problem) implements Step {}
}
