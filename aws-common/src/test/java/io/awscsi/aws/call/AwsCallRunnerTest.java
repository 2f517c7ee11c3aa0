package io.awscsi.aws.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.concurrent.TokenBucket;
import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.inflight.InFlightOperations;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import io.awscsi.core.provider.Readiness;
import io.grpc.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;

/** The one runner of AWS calls, with a stand-in service whose failures say which error they are. */
class AwsCallRunnerTest {

  /** A failure of the stand-in service: its mapping classifies it as {@code error}. */
  static final class ServiceFailure extends RuntimeException {
    final AwsCallError error;

    ServiceFailure(AwsCallError error) {
      super(error.message());
      this.error = error;
    }
  }

  /** The stand-in service's mapping: a ServiceFailure is its error, a timeout of the SDK passes the deadline. */
  private static final AwsErrorMapping MAPPING = new AwsErrorMapping() {
    @Override
    public AwsCallError classify(String api, String resourceId, RuntimeException failure) {
      return switch (failure) {
        case ServiceFailure f -> f.error;
        case ApiCallTimeoutException e -> new AwsCallError.DeadlinePassed("timed out");
        default -> new AwsCallError.Unexpected(failure.getClass().getSimpleName(), failure.getMessage());
      };
    }

    @Override
    public String metricCode(AwsCallError error, RuntimeException failure) {
      return error.getClass().getSimpleName();
    }
  };

  private static final AwsCallError THROTTLED = new AwsCallError.Throttled("RequestLimitExceeded", "slow down");
  private static final AwsCallError UNAVAILABLE = new AwsCallError.Unavailable("InternalError", "boom");
  private static final AwsCallError IN_USE = new AwsCallError.VolumeInUse("VolumeInUse", "in use");
  private static final AwsCallError DENIED = new AwsCallError.AccessDenied("AccessDenied", "no");
  private static final AwsCallError NOT_FOUND = new AwsCallError.NotFound("volume", "vol-1", "gone");

  private final AwsRetryPolicy policy = new AwsRetryPolicy(Duration.ofMillis(2), Duration.ofMillis(10), 4);
  private final MetricsRegistry metrics = new MetricsRegistry();
  private final Reachability reachability = new Reachability("EC2");

  private AwsCallRunner runner(AwsCallMetrics names) {
    return new AwsCallRunner("EC2", MAPPING, AwsRateLimits.DEFAULT, policy, names, metrics, reachability);
  }

  /**
   * One call whose attempts fail with {@code failures} in turn and then answer: how many attempts it took, and the
   * error it ended with (null when it was answered).
   */
  static Stream<Arguments> outcomes() {
    return Stream.of(
        Arguments.of("answered at once", List.of(), 1, null),
        Arguments.of("throttled, then answered", List.of(THROTTLED, THROTTLED), 3, null),
        Arguments.of("server fault, then answered", List.of(UNAVAILABLE), 2, null),
        Arguments.of("retries exhausted", List.of(THROTTLED, THROTTLED, UNAVAILABLE, THROTTLED, THROTTLED), 4,
            AwsCallError.Throttled.class),
        Arguments.of("not retryable: in use", List.of(IN_USE), 1, AwsCallError.VolumeInUse.class),
        Arguments.of("not retryable: not found", List.of(NOT_FOUND), 1, AwsCallError.NotFound.class),
        Arguments.of("not retryable: access denied", List.of(DENIED), 1, AwsCallError.AccessDenied.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("outcomes")
  void retriesOnlyWhatMayPassAndAtMostMaxAttempts(String name, List<AwsCallError> failures, int attempts,
      Class<? extends AwsCallError> endsWith) {
    AwsCallRunner calls = runner(AwsCallMetrics.EC2);
    AtomicInteger made = new AtomicInteger();
    List<Duration> timeouts = new ArrayList<>();
    try {
      String answer = calls.run(AwsAction.named("AttachVolume"), CallDeadline.after(Duration.ofSeconds(10)), o -> {
        timeouts.add(o.apiCallTimeout().orElseThrow());
        int attempt = made.getAndIncrement();
        if (attempt < failures.size()) {
          throw new ServiceFailure(failures.get(attempt));
        }
        return "attached";
      });
      assertThat(endsWith).as("answered").isNull();
      assertThat(answer).isEqualTo("attached");
    } catch (AwsCallException e) {
      assertThat(e.error()).isInstanceOf(endsWith);
      assertThat(e.operation()).isEqualTo("AttachVolume");
      assertThat(e.getMessage()).isEqualTo("AttachVolume: " + e.error().message());
    }
    assertThat(made).hasValue(attempts);
    assertThat(timeouts).as("each attempt's HTTP timeout is the time left, never more")
        .allSatisfy(t -> assertThat(t).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10)));
  }

  @Test
  void aDeadlinePassedBeforeTheCallSendsNothing() {
    AwsCallRunner calls = runner(AwsCallMetrics.EFS);
    AtomicInteger made = new AtomicInteger();
    CallDeadline passed = CallDeadline.after(Duration.ofMillis(-1));

    assertThatThrownBy(() -> calls.run(AwsAction.named("CreateAccessPoint"), "fs-1", passed,
        o -> made.incrementAndGet()))
        .isInstanceOfSatisfying(AwsCallException.class, e -> {
          assertThat(e.error()).isInstanceOf(AwsCallError.DeadlinePassed.class);
          assertThat(e.error().message()).isEqualTo("EC2 CreateAccessPoint of fs-1: the call's deadline passed "
              + "before the request could be sent");
        });
    assertThat(made).hasValue(0);
  }

  @Test
  void retriesStopAtTheDeadline() {
    AwsCallRunner calls = new AwsCallRunner("EC2", MAPPING, AwsRateLimits.DEFAULT,
        new AwsRetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 50), AwsCallMetrics.EC2, metrics,
        reachability);
    long start = System.nanoTime();

    assertThatThrownBy(() -> calls.run(AwsAction.named("CreateVolume"), CallDeadline.after(Duration.ofMillis(800)),
        o -> {
          throw new ServiceFailure(UNAVAILABLE);
        })).isInstanceOf(AwsCallException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
  }

  @Test
  void aTimeoutAtTheDeadlineNamesTheCallAndItsTime() {
    AwsCallRunner calls = runner(AwsCallMetrics.EFS);

    assertThatThrownBy(() -> calls.run(AwsAction.named("DescribeFileSystems"), "fs-1",
        CallDeadline.after(Duration.ofSeconds(5)), o -> {
          throw ApiCallTimeoutException.create(5000);
        })).isInstanceOfSatisfying(AwsCallException.class, e -> assertThat(e.error().message())
            .startsWith("EC2 DescribeFileSystems of fs-1 did not answer within ")
            .endsWith(" ms, the time left before the call's deadline"));
  }

  @Test
  void ec2MetricsCountThrottlesAsErrorsAndTimeOnlyAnswers() {
    AwsCallRunner calls = runner(AwsCallMetrics.EC2);
    AtomicInteger made = new AtomicInteger();
    calls.run(AwsAction.named("AttachVolume"), CallDeadline.after(Duration.ofSeconds(10)), o -> {
      if (made.incrementAndGet() < 3) {
        throw new ServiceFailure(THROTTLED);
      }
      return "attached";
    });

    assertThat(metrics.counter("aws_ebs_csi_api_request_throttles_total", "", "operation_name")
        .value("AttachVolume")).isEqualTo(2);
    assertThat(metrics.counter("aws_ebs_csi_api_request_errors_total", "", "request", "code")
        .value("AttachVolume", "Throttled")).isEqualTo(2);
    assertThat(metrics.histogram("aws_ebs_csi_api_request_duration_seconds", "", new double[0], "request")
        .count("AttachVolume")).isEqualTo(1);
  }

  @Test
  void efsMetricsTimeEveryAttemptAndCountThrottlesApart() {
    AwsCallRunner calls = runner(AwsCallMetrics.EFS);
    AtomicInteger made = new AtomicInteger();
    assertThatThrownBy(() -> calls.run(AwsAction.named("CreateAccessPoint"), "fs-1",
        CallDeadline.after(Duration.ofSeconds(10)), o -> {
          throw new ServiceFailure(made.incrementAndGet() < 3 ? THROTTLED : IN_USE);
        })).isInstanceOf(AwsCallException.class);

    assertThat(metrics.counter("aws_efs_csi_api_request_throttles_total", "", "request").value("CreateAccessPoint"))
        .isEqualTo(2);
    assertThat(metrics.counter("aws_efs_csi_api_request_errors_total", "", "request", "error")
        .value("CreateAccessPoint", "Throttled")).isZero();
    assertThat(metrics.counter("aws_efs_csi_api_request_errors_total", "", "request", "error")
        .value("CreateAccessPoint", "VolumeInUse")).isEqualTo(1);
    assertThat(metrics.histogram("aws_efs_csi_api_request_duration_seconds", "", new double[0], "request")
        .count("CreateAccessPoint")).isEqualTo(3);
  }

  /** Which failures tell readiness the service did not answer, and that any later answer clears it. */
  @ParameterizedTest(name = "{0} -> ready: {1}")
  @CsvSource({"Unavailable, false", "AccessDenied, false", "DeadlinePassed, false", "NotFound, true",
      "VolumeInUse, true", "Throttled, true"})
  void readinessFollowsWhetherTheServiceAnswered(String kind, boolean ready) {
    AwsCallError error = switch (kind) {
      case "Unavailable" -> UNAVAILABLE;
      case "AccessDenied" -> DENIED;
      case "DeadlinePassed" -> new AwsCallError.DeadlinePassed("no answer");
      case "NotFound" -> NOT_FOUND;
      case "VolumeInUse" -> IN_USE;
      default -> THROTTLED;
    };
    AwsCallRunner calls = new AwsCallRunner("EC2", MAPPING, AwsRateLimits.DEFAULT,
        new AwsRetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1), 1), AwsCallMetrics.EC2, metrics, reachability);

    assertThatThrownBy(() -> calls.run(AwsAction.named("DescribeVolumes"), CallDeadline.after(Duration.ofSeconds(5)),
        o -> {
          throw new ServiceFailure(error);
        })).isInstanceOf(AwsCallException.class);
    assertThat(calls.reachability().readiness() instanceof Readiness.Ready).isEqualTo(ready);

    calls.run(AwsAction.named("DescribeVolumes"), CallDeadline.after(Duration.ofSeconds(5)), o -> "answered");
    assertThat(calls.reachability().readiness()).isInstanceOf(Readiness.Ready.class);
  }

  @Test
  void aThrottledActionWaitsForItsOwnRefillOnly() {
    AwsCallRunner calls = new AwsCallRunner("EC2", MAPPING, new AwsRateLimits(1, 0.5, 1, 0.5),
        new AwsRetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1), 1), AwsCallMetrics.EC2, metrics, reachability);
    assertThatThrownBy(() -> calls.run(AwsAction.named("CreateVolume"), CallDeadline.after(Duration.ofSeconds(5)),
        o -> {
          throw new ServiceFailure(THROTTLED);
        })).isInstanceOf(AwsCallException.class);

    assertThatThrownBy(() -> calls.run(AwsAction.named("CreateVolume"), CallDeadline.after(Duration.ofMillis(500)),
        o -> "created")).as("the throttled action's bucket is drained: the wait would pass the deadline")
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error().message()).contains("for the client-side rate limit"));
    String deleted = calls.run(AwsAction.named("DeleteVolume"), CallDeadline.after(Duration.ofMillis(500)),
        o -> "deleted");
    assertThat(deleted).as("another action has its own bucket").isEqualTo("deleted");
  }

  @Test
  void tokenBucketRefusesAWaitBeyondTheDeadline() {
    AtomicLong now = new AtomicLong();
    TokenBucket bucket = new TokenBucket(1, 0.1, now::get);
    bucket.reserve();
    CallDeadline deadline = CallDeadline.after(Duration.ofMillis(100));

    assertThatThrownBy(() -> AwsCallRunner.waitForToken(bucket, deadline, "CreateVolume", "EC2 CreateVolume"))
        .isInstanceOfSatisfying(AwsCallException.class,
            e -> assertThat(e.error()).isInstanceOf(AwsCallError.DeadlinePassed.class));
    assertThat(bucket.available()).as("the token it will not use is given back").isZero();
  }

  /**
   * A burst larger than the rate limit: the call's token comes after its caller's deadline. Bound to the caller's
   * deadline the call would be refused at once (above) and each retry would queue again at the back; run as an
   * operation in flight it waits for its token on its own budget, sends once, and the retry gets its answer.
   */
  @Test
  void aTokenWaitLongerThanTheCallersDeadlineRunsOnAndTheRetryGetsTheAnswer() throws Exception {
    AwsCallRunner calls = new AwsCallRunner("EC2", MAPPING, new AwsRateLimits(1, 2, 1, 2), policy,
        AwsCallMetrics.EC2, metrics, reachability);
    InFlightOperations operations = new InFlightOperations(
        new InFlightOperations.Settings(Duration.ofSeconds(30), Duration.ofSeconds(30)));
    AtomicInteger sent = new AtomicInteger();
    Function<String, Supplier<String>> create = name -> () -> calls.run(
        AwsAction.named("CreateVolume"), name, CallDeadline.ofCurrentCall(Duration.ofSeconds(1)), o -> {
          sent.incrementAndGet();
          return "vol-" + name;
        });
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try {
      assertThat(operations.run("create/pvc-1", "CreateVolume", "args", create.apply("pvc-1")))
          .as("the burst's only token").isEqualTo("vol-pvc-1");

      // The next token comes in 500 ms; the caller gives up after 300.
      Context.CancellableContext caller = Context.current().withDeadlineAfter(300, TimeUnit.MILLISECONDS, timers);
      assertThatThrownBy(() -> caller.call(() -> operations.run("create/pvc-2", "CreateVolume", "args",
          create.apply("pvc-2"))))
          .isInstanceOfSatisfying(DriverException.class, e -> {
            assertThat(e.error()).isInstanceOf(DriverError.DeadlineExceeded.class);
            assertThat(e.getMessage()).contains("the work continues");
          });
      caller.cancel(null);
      long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (sent.get() < 2 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(sent).as("the work went on after its caller was answered").hasValue(2);

      assertThat(operations.run("create/pvc-2", "CreateVolume", "args", create.apply("pvc-2")))
          .isEqualTo("vol-pvc-2");
      assertThat(sent).as("one CreateVolume sent for the volume").hasValue(2);
    } finally {
      timers.shutdownNow();
    }
  }

  /**
   * An API that does not answer, called by an operation's work (which outlives its callers): each attempt ends by the
   * waiting caller's deadline, not the work's budget, so readiness says so and the caller's answer names the call
   * before its deadline, as when the call ran on the caller's thread; the work retries, and once the API answers the
   * caller's retry gets the answer.
   */
  @Test
  void anUnansweredAttemptInAnOperationEndsByTheCallersDeadlineNamedInItsAnswerAndInReadiness() throws Exception {
    AwsRetryPolicy patient = new AwsRetryPolicy(Duration.ofMillis(50), Duration.ofMillis(100), 50);
    AwsCallRunner calls = new AwsCallRunner("EFS", MAPPING, AwsRateLimits.DEFAULT, patient, AwsCallMetrics.EFS,
        metrics, reachability);
    InFlightOperations operations = new InFlightOperations(
        new InFlightOperations.Settings(Duration.ofSeconds(60), Duration.ofSeconds(30)));
    java.util.concurrent.atomic.AtomicBoolean frozen = new java.util.concurrent.atomic.AtomicBoolean(true);
    List<Duration> attemptTimes = new java.util.concurrent.CopyOnWriteArrayList<>();
    Supplier<String> create = () -> calls.run(AwsAction.named("DescribeAccessPoints"), "fs-1",
        CallDeadline.ofCurrentCall(Duration.ofSeconds(60)), o -> {
          Duration allowed = o.apiCallTimeout().orElseThrow();
          attemptTimes.add(allowed);
          if (frozen.get()) {
            try {
              Thread.sleep(allowed);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw ApiCallTimeoutException.create(allowed.toMillis());
          }
          return "fsap-1";
        });
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try {
      Context.CancellableContext caller = Context.current().withDeadlineAfter(2, TimeUnit.SECONDS, timers);
      long start = System.nanoTime();
      assertThatThrownBy(() -> caller.call(() -> operations.run("create/pvc-1", "CreateVolume", "args", create)))
          .isInstanceOfSatisfying(DriverException.class, e -> {
            assertThat(e.error()).isInstanceOf(DriverError.DeadlineExceeded.class);
            assertThat(e.getMessage()).contains("EFS DescribeAccessPoints of fs-1 did not answer within",
                "the work continues");
            assertThat(reachability.readiness()).as("readiness knew before the caller was answered")
                .isInstanceOfSatisfying(Readiness.NotReady.class, r -> assertThat(r.reason())
                    .contains("EFS", "DescribeAccessPoints"));
          });
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      caller.cancel(null);
      assertThat(took).as("answered before the caller's 2 s").isLessThan(Duration.ofMillis(2000));
      assertThat(attemptTimes.getFirst()).as("the first attempt: the caller's 2 s less the margin, not the 60 s")
          .isBetween(Duration.ofMillis(1500), Duration.ofMillis(1800));

      frozen.set(false);
      assertThat(operations.run("create/pvc-1", "CreateVolume", "args", create)).isEqualTo("fsap-1");
      assertThat(attemptTimes.size()).as("the work retried the unanswered call").isGreaterThan(1);
      assertThat(reachability.readiness()).isInstanceOf(Readiness.Ready.class);
    } finally {
      timers.shutdownNow();
    }
  }

  @ParameterizedTest(name = "attempt {0}, random {1}, {2} ms left -> {3} ms")
  @CsvSource({
      "1, 0.0, 10000, 50",
      "1, 0.999, 10000, 99",
      "2, 0.0, 10000, 100",
      "4, 0.5, 10000, 600",
      "10, 0.0, 10000, 2500",
      "10, 0.999, 10000, 4997",
      "10, 0.999, 1000, 950",
      "3, 0.5, 40, 0"})
  void backoffIsExponentialWithJitterCappedByMaxAndDeadline(int attempt, double random, long leftMillis,
      long expectedMillis) {
    AwsRetryPolicy wide = new AwsRetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 50);
    assertThat(wide.backoff(attempt, random, Duration.ofMillis(leftMillis)).toMillis()).isEqualTo(expectedMillis);
  }

  @Test
  void onlyThrottlingAndServerFaultsAreRetriedAndOnlyWithTimeLeft() {
    Duration plenty = Duration.ofSeconds(10);
    assertThat(policy.shouldRetry(THROTTLED, plenty)).isTrue();
    assertThat(policy.shouldRetry(UNAVAILABLE, plenty)).isTrue();
    assertThat(policy.shouldRetry(THROTTLED, Duration.ofMillis(10))).isFalse();
    assertThat(policy.shouldRetry(NOT_FOUND, plenty)).isFalse();
    assertThat(policy.shouldRetry(IN_USE, plenty)).isFalse();
    assertThat(policy.shouldRetry(new AwsCallError.InvalidRequest("InvalidParameterValue", ""), plenty)).isFalse();
  }

  @Test
  void describeAndListActionsAreNotMutating() {
    assertThat(AwsAction.named("DescribeAccessPoints").mutating()).isFalse();
    assertThat(AwsAction.named("ListTagsForResource").mutating()).isFalse();
    assertThat(AwsAction.named("CreateAccessPoint").mutating()).isTrue();
  }
}
