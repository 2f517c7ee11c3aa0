package io.awscsi.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.core.errors.GrpcErrors;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole transition table, written out by hand from the node's half of the CSI spec's lifecycle (figure 6, with
 * and without NodeStage) and its error tables: every state x operation x repeat, with and without staging. Outcomes:
 * {@code ->STATE} proceeds to STATE, {@code done} is an idempotent success, a gRPC code name is a refusal with that
 * code. UNKNOWN (a volume this process has not seen) always proceeds so the provider's host checks decide, except for
 * calls the driver does not offer at all.
 */
class VolumeLifecycleTest {

  private static final String TABLE = """
      # staging  operation             state       FIRST                SAME                 CONFLICTING
      staging    NODE_STAGE            UNKNOWN     ->VOL_READY          ->VOL_READY          ->VOL_READY
      staging    NODE_STAGE            NODE_READY  ->VOL_READY          ->VOL_READY          ->VOL_READY
      staging    NODE_STAGE            VOL_READY   done                 done                 ALREADY_EXISTS
      staging    NODE_STAGE            PUBLISHED   done                 done                 ALREADY_EXISTS

      staging    NODE_PUBLISH          UNKNOWN     ->PUBLISHED          ->PUBLISHED          ->PUBLISHED
      staging    NODE_PUBLISH          NODE_READY  FAILED_PRECONDITION  FAILED_PRECONDITION  FAILED_PRECONDITION
      staging    NODE_PUBLISH          VOL_READY   ->PUBLISHED          ->PUBLISHED          ->PUBLISHED
      staging    NODE_PUBLISH          PUBLISHED   ->PUBLISHED          done                 ALREADY_EXISTS

      staging    NODE_UNPUBLISH        UNKNOWN     ->VOL_READY          ->VOL_READY          ->VOL_READY
      staging    NODE_UNPUBLISH        NODE_READY  done                 done                 done
      staging    NODE_UNPUBLISH        VOL_READY   done                 done                 done
      staging    NODE_UNPUBLISH        PUBLISHED   ->VOL_READY          ->VOL_READY          ->VOL_READY

      staging    NODE_UNSTAGE          UNKNOWN     ->NODE_READY         ->NODE_READY         ->NODE_READY
      staging    NODE_UNSTAGE          NODE_READY  done                 done                 done
      staging    NODE_UNSTAGE          VOL_READY   ->NODE_READY         ->NODE_READY         ->NODE_READY
      staging    NODE_UNSTAGE          PUBLISHED   FAILED_PRECONDITION  FAILED_PRECONDITION  FAILED_PRECONDITION

      # Without staging there is no VOL_READY step (it is listed for completeness) and NodeStage/NodeUnstage are
      # not offered at all, in any state.
      direct     NODE_STAGE            UNKNOWN     UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_STAGE            NODE_READY  UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_STAGE            VOL_READY   UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_STAGE            PUBLISHED   UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED

      direct     NODE_PUBLISH          UNKNOWN     ->PUBLISHED          ->PUBLISHED          ->PUBLISHED
      direct     NODE_PUBLISH          NODE_READY  ->PUBLISHED          ->PUBLISHED          ->PUBLISHED
      direct     NODE_PUBLISH          VOL_READY   ->PUBLISHED          ->PUBLISHED          ->PUBLISHED
      direct     NODE_PUBLISH          PUBLISHED   ->PUBLISHED          done                 ALREADY_EXISTS

      direct     NODE_UNPUBLISH        UNKNOWN     ->NODE_READY         ->NODE_READY         ->NODE_READY
      direct     NODE_UNPUBLISH        NODE_READY  done                 done                 done
      direct     NODE_UNPUBLISH        VOL_READY   done                 done                 done
      direct     NODE_UNPUBLISH        PUBLISHED   ->NODE_READY         ->NODE_READY         ->NODE_READY

      direct     NODE_UNSTAGE          UNKNOWN     UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_UNSTAGE          NODE_READY  UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_UNSTAGE          VOL_READY   UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      direct     NODE_UNSTAGE          PUBLISHED   UNIMPLEMENTED        UNIMPLEMENTED        UNIMPLEMENTED
      """;

  private static final String VOLUME = "vol-0a1b2c3d4e5f67890";

  record Row(boolean staging, Operation op, VolumeState state, Repeat repeat, String expected) {
    @Override
    public String toString() {
      return (staging ? "staging " : "direct ") + op + " in " + state + " (" + repeat + ") -> " + expected;
    }
  }

  static List<Row> table() {
    List<Row> rows = new ArrayList<>();
    for (String line : TABLE.lines().map(String::strip).toList()) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\\s+");
      boolean staging = switch (f[0]) {
        case "staging" -> true;
        case "direct" -> false;
        default -> throw new IllegalArgumentException("bad row: " + line);
      };
      for (Repeat repeat : Repeat.values()) {
        rows.add(new Row(staging, Operation.valueOf(f[1]), VolumeState.valueOf(f[2]), repeat, f[3 + repeat.ordinal()]));
      }
    }
    return rows;
  }

  @Test
  void tableCoversEveryCombinationExactlyOnce() {
    List<Row> rows = table();
    Set<List<Object>> keys = new HashSet<>();
    rows.forEach(r -> keys.add(List.of(r.staging(), r.op(), r.state(), r.repeat())));

    int combinations = 2 * Operation.values().length * VolumeState.values().length * Repeat.values().length;
    assertThat(rows).hasSize(combinations);
    assertThat(keys).hasSize(combinations);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void decides(Row row) {
    Decision decision = new VolumeLifecycle(row.staging()).decide(row.state(), row.op(), row.repeat(), VOLUME);

    assertThat(outcome(decision)).isEqualTo(row.expected());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void refusalsTellTheOperatorWhichVolumeAndWhatToDo(Row row) {
    Decision decision = new VolumeLifecycle(row.staging()).decide(row.state(), row.op(), row.repeat(), VOLUME);

    if (decision instanceof Decision.Reject(var error) && !row.expected().equals("UNIMPLEMENTED")) {
      assertThat(error.message()).contains(VOLUME);
    } else if (decision instanceof Decision.Reject(var error)) {
      assertThat(error.message()).contains(row.op() == Operation.NODE_STAGE ? "NodeStageVolume" : "NodeUnstageVolume");
    }
  }

  private static String outcome(Decision decision) {
    return switch (decision) {
      case Decision.Proceed(VolumeState next) -> "->" + next;
      case Decision.AlreadyDone d -> "done";
      case Decision.Reject(var error) -> {
        Status.Code code = GrpcErrors.toStatus(error).getCode();
        yield code.name();
      }
    };
  }
}
