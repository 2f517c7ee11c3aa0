package io.awscsi.core.inflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.CallBudget;
import io.awscsi.core.provider.WorkProgress;
import io.awscsi.core.testing.CallGate;
import io.grpc.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InFlightOperationsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InFlightOperations operations = new InFlightOperations(
      new InFlightOperations.Settings(Duration.ofMinutes(2), Duration.ofMillis(500)));
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void stop() {
    timers.shutdownNow();
  }

  /** Work that counts its runs, passes {@code gate} and answers "vol-" and its run number. */
  private Supplier<String> work(CallGate gate) {
    return () -> {
      int run = runs.incrementAndGet();
      gate.pass();
      return "vol-" + run;
    };
  }

  /** Runs {@code call} as a gRPC handler whose caller set a deadline {@code timeout} from now. */
  private <T> T withCallerDeadline(Duration timeout, Supplier<T> call) throws Exception {
    Context.CancellableContext context = Context.current()
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS, timers);
    try {
      return context.call(call::get);
    } finally {
      context.cancel(null);
    }
  }

  private static DriverError errorOf(Throwable t) {
    return ((DriverException) t).error();
  }

  @Test
  void aCallerWhoseDeadlinePassesIsAnsweredInTimeAndItsRetryJoinsTheWorkThatContinued() throws Exception {
    CallGate gate = CallGate.closed();
    long start = System.nanoTime();

    assertThatThrownBy(() -> withCallerDeadline(Duration.ofMillis(400),
        () -> operations.run("create/pvc-1", "CreateVolume", "args", work(gate))))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.DeadlineExceeded.class);
          assertThat(e.getMessage()).contains("create/pvc-1", "the work continues", "a retry");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("answered before the caller's deadline")
        .isLessThan(Duration.ofMillis(400));
    assertThat(operations.isRunning("create/pvc-1")).isTrue();

    CompletableFuture<String> retry = CompletableFuture.supplyAsync(() -> operations.run("create/pvc-1",
        "CreateVolume", "args", work(gate)), r -> Thread.ofVirtual().start(r));
    gate.open();

    assertThat(retry.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("vol-1");
    assertThat(runs).as("the retry joined the first call's work").hasValue(1);
  }

  @Test
  void theWorkRunsWithItsOwnBudgetNotTheCallersDeadline() throws Exception {
    AtomicReference<Instant> workDeadline = new AtomicReference<>();
    Instant callerDeadline = Instant.now().plusSeconds(5);

    withCallerDeadline(Duration.ofSeconds(5), () -> operations.run("vol-1", "DeleteVolume", "args", () -> {
      workDeadline.set(CallBudget.deadline(Duration.ZERO));
      return "deleted";
    }));

    assertThat(workDeadline.get()).as("the work's deadline is its budget (2 min less the margin to answer)")
        .isAfter(callerDeadline.plusSeconds(60));
  }

  @Test
  void aCallerWithALongerDeadlineThanTheBudgetGivesTheWorkItsDeadline() throws Exception {
    AtomicReference<Instant> workDeadline = new AtomicReference<>();

    withCallerDeadline(Duration.ofMinutes(6), () -> operations.run("vol-1", "DeleteVolume", "args", () -> {
      workDeadline.set(CallBudget.deadline(Duration.ZERO));
      return "deleted";
    }));

    assertThat(workDeadline.get()).as("6 min less the margin, not the 2 min budget")
        .isAfter(Instant.now().plus(Duration.ofMinutes(5)));
  }

  @Test
  void aSuccessIsKeptBrieflyForARetryThatArrivesAfterTheWorkFinished() throws Exception {
    CallGate open = CallGate.opened();

    assertThat(operations.run("vol-1/i-1", "ControllerPublishVolume", "args", work(open))).isEqualTo("vol-1");
    assertThat(operations.run("vol-1/i-1", "ControllerPublishVolume", "args", work(open)))
        .as("the late retry gets the kept answer").isEqualTo("vol-1");
    assertThat(runs).hasValue(1);

    Thread.sleep(800); // past keepResult
    assertThat(operations.run("vol-1/i-1", "ControllerPublishVolume", "args", work(open)))
        .as("a call after the result was forgotten runs the work again").isEqualTo("vol-2");
  }

  @Test
  void aSuccessDescribingAStateStillChangingIsNotKeptSoTheRepeatReadsTheStateAgain() {
    // A snapshot pending on its first two reads, then completed: the snapshotter repeats CreateSnapshot until ready.
    Supplier<String> snapshot = () -> runs.incrementAndGet() < 3 ? "pending" : "completed";

    assertThat(operations.run("snapshot/s-1", "CreateSnapshot", "args", snapshot, "completed"::equals))
        .isEqualTo("pending");
    assertThat(operations.run("snapshot/s-1", "CreateSnapshot", "args", snapshot, "completed"::equals))
        .as("the repeat reads the state again instead of the kept 'pending'").isEqualTo("pending");
    assertThat(operations.run("snapshot/s-1", "CreateSnapshot", "args", snapshot, "completed"::equals))
        .isEqualTo("completed");
    assertThat(operations.run("snapshot/s-1", "CreateSnapshot", "args", snapshot, "completed"::equals))
        .as("a final answer is kept like any other").isEqualTo("completed");
    assertThat(runs).hasValue(3);
  }

  @Test
  void aForgottenOrReplacedAnswerIsNotHeldInMemoryUntilItsKeepTimePasses() throws Exception {
    InFlightOperations longKeep = new InFlightOperations(
        new InFlightOperations.Settings(Duration.ofMinutes(2), Duration.ofMinutes(15)));
    java.lang.ref.WeakReference<Object> forgotten = new java.lang.ref.WeakReference<>(
        longKeep.run("pvc-1", "CreateVolume", "args", () -> new StringBuilder("vol-1")));
    java.lang.ref.WeakReference<Object> replaced = new java.lang.ref.WeakReference<>(
        longKeep.run("vol-1/i-1", "ControllerPublishVolume", "args", () -> new StringBuilder("attached")));
    longKeep.run("vol-1/i-1", "ControllerUnpublishVolume", "args", () -> "detached");
    longKeep.forgetResults((key, answer) -> key.equals("pvc-1"));

    for (int i = 0; i < 50 && (forgotten.get() != null || replaced.get() != null); i++) {
      System.gc();
      Thread.sleep(20);
    }
    assertThat(forgotten.get()).as("the forgotten CreateVolume answer").isNull();
    assertThat(replaced.get()).as("the publish answer the unpublish replaced").isNull();
  }

  @Test
  void anotherOperationOnTheKeyReplacesAKeptResult() {
    CallGate open = CallGate.opened();
    operations.run("vol-1/i-1", "ControllerPublishVolume", "args", work(open));
    operations.run("vol-1/i-1", "ControllerUnpublishVolume", "args", work(open));

    assertThat(operations.run("vol-1/i-1", "ControllerPublishVolume", "args", work(open)))
        .as("a publish after an unpublish attaches again, never the kept answer").isEqualTo("vol-3");
  }

  @Test
  void aCallWithOtherArgumentsOrAnotherOperationWhileTheWorkRunsIsAborted() throws Exception {
    CallGate gate = CallGate.closed();
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> operations.run("create/pvc-1",
        "CreateVolume", "10 GiB", work(gate)), r -> Thread.ofVirtual().start(r));
    assertThat(gate.awaitEntered(WAIT)).isTrue();

    assertThatThrownBy(() -> operations.run("create/pvc-1", "CreateVolume", "20 GiB", work(gate)))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.Aborted.class);
          assertThat(e.getMessage()).contains("create/pvc-1", "in progress");
        });
    assertThatThrownBy(() -> operations.run("create/pvc-1", "DeleteVolume", "10 GiB", work(gate)))
        .satisfies(e -> assertThat(errorOf(e)).isInstanceOf(DriverError.Aborted.class));
    gate.open();

    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("vol-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void aFailureIsAnsweredToEveryWaitingCallerAndNotKept() throws Exception {
    CallGate gate = CallGate.closed();
    Supplier<String> failing = () -> {
      runs.incrementAndGet();
      gate.pass();
      throw DriverException.unavailable("EC2 did not answer");
    };
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> operations.run("vol-1", "DeleteVolume",
        "args", failing), r -> Thread.ofVirtual().start(r));
    assertThat(gate.awaitEntered(WAIT)).isTrue();
    CompletableFuture<String> joined = CompletableFuture.supplyAsync(() -> operations.run("vol-1", "DeleteVolume",
        "args", failing), r -> Thread.ofVirtual().start(r));
    Thread.sleep(100);
    gate.open();

    for (CompletableFuture<String> caller : java.util.List.of(first, joined)) {
      assertThatThrownBy(() -> caller.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .cause().satisfies(e -> assertThat(errorOf(e)).isInstanceOf(DriverError.Unavailable.class));
    }
    assertThat(runs).hasValue(1);
    assertThat(operations.run("vol-1", "DeleteVolume", "args", work(CallGate.opened())))
        .as("the next call runs the work again").isEqualTo("vol-2");
  }

  @Test
  void anInterruptedCallerStopsTheWork() throws Exception {
    CallGate gate = CallGate.closed();
    Thread caller = Thread.ofVirtual().start(() -> {
      try {
        operations.run("vol-1", "DeleteVolume", "args", work(gate));
      } catch (DriverException expected) {
        // the driver is stopping
      }
    });
    assertThat(gate.awaitEntered(WAIT)).isTrue();

    caller.interrupt();

    assertThat(gate.awaitInterrupted(WAIT)).as("the server's shutdown reaches the work").isTrue();
  }

  @Test
  void aCallerAnsweredBeforeTheWorkFinishedIsToldWhatTheWorkWaitsOnAndItsLastFailure() throws Exception {
    CallGate gate = CallGate.closed();
    Supplier<String> waitsOnTheCloud = () -> {
      WorkProgress.failed("EFS DescribeAccessPoints of fs-1 did not answer within 300 ms");
      try (var waiting = WorkProgress.waitingOn("EFS DeleteAccessPoint of fsap-1 (sent, no answer yet)")) {
        gate.pass();
      }
      return "done";
    };

    assertThatThrownBy(() -> withCallerDeadline(Duration.ofMillis(600),
        () -> operations.run("vol-1", "DeleteVolume", "args", waitsOnTheCloud)))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.DeadlineExceeded.class);
          assertThat(e.getMessage()).contains("waiting", "on EFS DeleteAccessPoint of fsap-1 (sent, no answer yet)",
              "the last failure", "EFS DescribeAccessPoints of fs-1 did not answer within 300 ms",
              "the work continues");
        });
    gate.open();
  }

  @Test
  void anAttemptOfTheWorkEndsByTheWaitingCallersDeadlineAndWithoutCallerAsLongAsACallerHad() throws Exception {
    CallGate gate = CallGate.closed();
    AtomicReference<Instant> whileWaited = new AtomicReference<>();
    AtomicReference<Instant> afterwards = new AtomicReference<>();
    Instant workBudgetEnd = Instant.now().plus(Duration.ofMinutes(2));
    Supplier<String> attempts = () -> {
      whileWaited.set(WorkProgress.attemptDeadline(workBudgetEnd));
      gate.pass();
      afterwards.set(WorkProgress.attemptDeadline(workBudgetEnd));
      return "done";
    };
    Instant callerDeadline = Instant.now().plus(Duration.ofSeconds(3));

    assertThatThrownBy(() -> withCallerDeadline(Duration.ofSeconds(3),
        () -> operations.run("vol-1", "DeleteVolume", "args", attempts)))
        .isInstanceOf(DriverException.class);
    Instant opened = Instant.now();
    gate.open();
    long until = System.nanoTime() + WAIT.toNanos();
    while (operations.isRunning("vol-1") && System.nanoTime() < until) {
      Thread.sleep(10);
    }

    assertThat(whileWaited.get()).as("the waiting caller's deadline less the margin")
        .isBetween(callerDeadline.minus(Duration.ofMillis(600)), callerDeadline.minus(Duration.ofMillis(250)));
    assertThat(afterwards.get()).as("no caller waits: as long as the caller had (2.7 s), not the work's 2 min")
        .isBetween(opened.plus(Duration.ofMillis(2500)), opened.plus(Duration.ofMillis(3500)));
    assertThat(WorkProgress.attemptDeadline(workBudgetEnd)).as("outside an operation's work: the deadline given")
        .isEqualTo(workBudgetEnd);
  }
}
