package io.awscsi.launcher.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.Environment;
import io.awscsi.aws.testing.KubernetesMockApi;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriverBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StartupTaintRemoverTest {

  private static final String NODE = "node-1";
  private static final String EBS = "ebs.csi.aws.com";
  private static final String EFS = "efs.csi.aws.com";
  private static final Taint EBS_NOT_READY = taint(EBS + "/agent-not-ready", "NoExecute");
  private static final Taint OTHER = taint("example.com/keep", "NoSchedule");
  private static final Environment ENV = Environment.of(Map.of("CSI_NODE_NAME", NODE));

  private KubernetesMockApi api;

  @BeforeEach
  void startApi() {
    api = KubernetesMockApi.start();
  }

  @AfterEach
  void stopApi() {
    api.close();
  }

  @Test
  void removesTheTaintOnceCsiNodeHasTheDriverWithItsAllocatableCount() {
    createNode(EBS_NOT_READY, OTHER);
    createCsiNode(EBS, 25);

    TaintRemovalOutcome outcome = remover(ebs(Duration.ofSeconds(5)), ENV).run();

    assertThat(outcome).isEqualTo(new TaintRemovalOutcome.Removed(NODE, 1));
    assertThat(taintKeys()).containsExactly(OTHER.getKey());
  }

  @Test
  void keepsTheTaintWhileTheNodeHasNoCsiNode() {
    createNode(EBS_NOT_READY, OTHER);

    TaintRemovalOutcome outcome = remover(ebs(Duration.ofMillis(300)), ENV).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.GaveUp.class);
    assertThat(((TaintRemovalOutcome.GaveUp) outcome).lastProblem()).contains("CSINode " + NODE);
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey(), OTHER.getKey());
  }

  @Test
  void ebsKeepsTheTaintWhileTheDriverHasNoAllocatableCount() {
    createNode(EBS_NOT_READY);
    createCsiNode(EBS, null);

    TaintRemovalOutcome outcome = remover(ebs(Duration.ofMillis(300)), ENV).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.GaveUp.class);
    assertThat(((TaintRemovalOutcome.GaveUp) outcome).lastProblem()).contains("allocatable.count");
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey());
  }

  @Test
  void keepsTheTaintWhileOnlyAnotherDriverIsRegistered() {
    createNode(EBS_NOT_READY);
    createCsiNode(EFS, 10);

    TaintRemovalOutcome outcome = remover(ebs(Duration.ofMillis(300)), ENV).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.GaveUp.class);
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey());
  }

  @Test
  void efsRemovesItsTaintOnceTheDriverIsListedWithoutAllocatableCount() {
    createNode(taint(EFS + "/agent-not-ready", "NoExecute"), EBS_NOT_READY);
    createCsiNode(EFS, null);

    StartupTaintSettings efs =
        StartupTaintSettings.forEfs()
            .withSchedule(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofSeconds(5));
    TaintRemovalOutcome outcome = remover(efs, ENV).run();

    assertThat(outcome).isEqualTo(new TaintRemovalOutcome.Removed(NODE, 1));
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey());
  }

  @ParameterizedTest
  @ValueSource(strings = {"NoSchedule", "PreferNoSchedule", "NoExecute"})
  void removesTheTaintWhateverItsEffect(String effect) {
    createNode(taint(EBS + "/agent-not-ready", effect));
    createCsiNode(EBS, 25);

    assertThat(remover(ebs(Duration.ofSeconds(5)), ENV).run()).isInstanceOf(TaintRemovalOutcome.Removed.class);
    assertThat(taintKeys()).isEmpty();
  }

  @Test
  void waitsOnItsVirtualThreadUntilTheDriverRegistersThenRemovesTheTaint() throws Exception {
    createNode(EBS_NOT_READY, OTHER);
    try (StartupTaintRemover remover = remover(ebs(Duration.ofSeconds(10)), ENV)) {
      CompletableFuture<TaintRemovalOutcome> outcome = remover.start();
      // Registration lands while the remover is already retrying.
      Thread.sleep(200);
      assertThat(outcome).isNotDone();
      assertThat(taintKeys()).contains(EBS_NOT_READY.getKey());
      createCsiNode(EBS, 25);

      TaintRemovalOutcome result = outcome.get(10, TimeUnit.SECONDS);
      assertThat(result).isInstanceOf(TaintRemovalOutcome.Removed.class);
      assertThat(((TaintRemovalOutcome.Removed) result).attempts()).isGreaterThan(1);
    }
    assertThat(taintKeys()).containsExactly(OTHER.getKey());
  }

  @Test
  void aTaintAddedConcurrentlyIsNotLost() {
    // The API holds the taint another controller just added; the remover's first read still sees the older list.
    createNode(EBS_NOT_READY, OTHER);
    createCsiNode(EBS, 25);
    Node stale = node(EBS_NOT_READY);
    api.server().expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(200, stale).once();

    TaintRemovalOutcome outcome;
    try (KubernetesClient impatient = api.clientWithRequestTimeout(Duration.ofSeconds(3))) {
      outcome = new StartupTaintRemover(ebs(Duration.ofSeconds(20)), () -> impatient, ENV).run();
    }

    // The first patch's test operation fails; the second attempt reads the current taints and keeps the new one.
    assertThat(outcome).isEqualTo(new TaintRemovalOutcome.Removed(NODE, 2));
    assertThat(taintKeys()).containsExactly(OTHER.getKey());
  }

  @Test
  void aNodeWithoutTheTaintIsLeftAlone() {
    createNode(OTHER);

    assertThat(remover(ebs(Duration.ofSeconds(5)), ENV).run()).isEqualTo(new TaintRemovalOutcome.NotTainted(NODE));
    assertThat(taintKeys()).containsExactly(OTHER.getKey());
  }

  @Test
  void forbiddenApiSkipsRemoval() {
    createNode(EBS_NOT_READY);
    createCsiNode(EBS, 25);
    api.server()
        .expect()
        .get()
        .withPath("/api/v1/nodes/" + NODE)
        .andReturn(
            403,
            new StatusBuilder().withCode(403).withReason("Forbidden").withMessage("nodes is forbidden").build())
        .always();

    TaintRemovalOutcome outcome = remover(ebs(Duration.ofSeconds(30)), ENV).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.Skipped.class);
    assertThat(((TaintRemovalOutcome.Skipped) outcome).reason()).contains("403");
  }

  @Test
  void disableTaintWatcherSkipsRemoval() {
    createNode(EBS_NOT_READY);
    createCsiNode(EBS, 25);

    TaintRemovalOutcome outcome =
        remover(ebs(Duration.ofSeconds(5)), ENV.with("DISABLE_TAINT_WATCHER", "true")).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.Skipped.class);
    assertThat(((TaintRemovalOutcome.Skipped) outcome).reason()).contains("DISABLE_TAINT_WATCHER");
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey());
  }

  @Test
  void disableTaintWatcherFalseDoesNotDisable() {
    createNode(EBS_NOT_READY);
    createCsiNode(EBS, 25);

    TaintRemovalOutcome outcome =
        remover(ebs(Duration.ofSeconds(5)), ENV.with("DISABLE_TAINT_WATCHER", "false")).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.Removed.class);
  }

  @Test
  void withoutNodeNameRemovalIsSkipped() {
    assertThat(remover(ebs(Duration.ofSeconds(5)), Environment.empty()).run())
        .isInstanceOf(TaintRemovalOutcome.Skipped.class);
  }

  @Test
  void unreachableApiEndsInGivingUpNotInAnException() {
    Supplier<KubernetesClient> noCluster =
        () -> {
          throw new IllegalStateException("no kubeconfig and not in a cluster");
        };
    TaintRemovalOutcome outcome =
        new StartupTaintRemover(ebs(Duration.ofMillis(200)), noCluster, ENV).run();

    assertThat(outcome).isInstanceOf(TaintRemovalOutcome.GaveUp.class);
    assertThat(((TaintRemovalOutcome.GaveUp) outcome).lastProblem()).contains("no kubeconfig");
  }

  @Test
  void closingAStartedRemoverStopsIt() throws Exception {
    createNode(EBS_NOT_READY);
    StartupTaintRemover remover = remover(ebs(Duration.ofMinutes(5)), ENV);
    CompletableFuture<TaintRemovalOutcome> outcome = remover.start();
    Thread.sleep(100);

    remover.close();

    assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(TaintRemovalOutcome.GaveUp.class);
    assertThat(taintKeys()).containsExactly(EBS_NOT_READY.getKey());
  }

  private StartupTaintRemover remover(StartupTaintSettings settings, Environment environment) {
    return new StartupTaintRemover(settings, api::client, environment);
  }

  private static StartupTaintSettings ebs(Duration deadline) {
    return StartupTaintSettings.forEbs().withSchedule(Duration.ofMillis(20), Duration.ofMillis(100), deadline);
  }

  private static Taint taint(String key, String effect) {
    return new TaintBuilder().withKey(key).withEffect(effect).build();
  }

  private static Node node(Taint... taints) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(NODE)
        .endMetadata()
        .withNewSpec()
        .withProviderID("aws:///us-east-1a/i-0123456789abcdef0")
        .withTaints(taints)
        .endSpec()
        .build();
  }

  private void createNode(Taint... taints) {
    api.client().nodes().resource(node(taints)).create();
  }

  private void createCsiNode(String driver, Integer allocatableCount) {
    CSINodeDriverBuilder entry = new CSINodeDriverBuilder().withName(driver).withNodeID("i-0123456789abcdef0");
    if (allocatableCount != null) {
      entry.withNewAllocatable().withCount(allocatableCount).endAllocatable();
    }
    api.client()
        .storage()
        .v1()
        .csiNodes()
        .resource(
            new CSINodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .endMetadata()
                .withNewSpec()
                .withDrivers(entry.build())
                .endSpec()
                .build())
        .create();
  }

  private List<String> taintKeys() {
    Node node = api.client().nodes().withName(NODE).get();
    List<Taint> taints = node.getSpec().getTaints();
    return taints == null ? List.of() : taints.stream().map(Taint::getKey).toList();
  }
}
