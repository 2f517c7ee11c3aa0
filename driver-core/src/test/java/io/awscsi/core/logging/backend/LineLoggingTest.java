package io.awscsi.core.logging.backend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LineLoggingTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private LogLevels previousLevels;
  private LogLineFormat previousFormat;

  @BeforeEach
  void redirect() {
    previousLevels = LineLogging.levels();
    previousFormat = LineLogging.format();
    LineLogging.output(new PrintStream(bytes, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    LineLogging.output(System.err);
    LineLogging.configure(previousFormat, previousLevels);
    ThreadContext.clearMap();
  }

  private String written() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theLog4jApiIsServedByThisBackend() {
    assertThat(LogManager.getFactory()).isInstanceOf(LineLoggerContextFactory.class);
    assertThat(LogManager.getLogger("io.awscsi.x")).isInstanceOf(LineLogger.class);
  }

  @Test
  void theLongestConfiguredPrefixDecidesTheThreshold() {
    LogLevels levels = LogLevels.defaults(Level.DEBUG);

    assertThat(levels.thresholdFor("io.netty.bootstrap.ServerBootstrap")).isEqualTo(Level.ERROR);
    assertThat(levels.thresholdFor("io.netty.channel.epoll.Epoll")).isEqualTo(Level.WARN);
    assertThat(levels.thresholdFor("io.nettyish.Thing")).as("a prefix counts only at a dot").isEqualTo(Level.DEBUG);
    assertThat(levels.thresholdFor("io.awscsi.core.Calls")).isEqualTo(Level.DEBUG);
    assertThat(levels.thresholdFor("Calls")).isEqualTo(Level.DEBUG);
  }

  @Test
  void levelsApplyAndAReconfigurationReachesExistingLoggers() {
    Logger log = LogManager.getLogger("io.awscsi.test.Levels");
    LineLogging.configure(LogLineFormat.TEXT, LogLevels.defaults(Level.INFO));
    log.debug("hidden {}", 1);
    log.info("shown {}", 2);
    LogManager.getLogger("software.amazon.awssdk.request").info("sdk chatter");

    LineLogging.configure(LogLineFormat.TEXT, LogLevels.defaults(Level.DEBUG));
    log.debug("now shown {}", 3);

    assertThat(written()).doesNotContain("hidden", "sdk chatter").contains("shown 2", "now shown 3");
    assertThat(log.isDebugEnabled()).isTrue();
  }

  @Test
  void aTextLineHasTimeLevelLoggerAndMessageAndTheStackTraceBelow() {
    LineLogging.configure(LogLineFormat.TEXT, LogLevels.defaults(Level.INFO));
    LogManager.getLogger("io.awscsi.test.Text").warn("disk {} is {}", "vol-1", "gone",
        new IllegalStateException("boom"));

    String[] lines = written().split("\n");
    assertThat(lines[0]).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z WARN  Text - disk vol-1 is gone");
    assertThat(lines[1]).isEqualTo("java.lang.IllegalStateException: boom");
    assertThat(lines[2]).startsWith("\tat io.awscsi.core.logging.backend.LineLoggingTest.");
  }

  @Test
  void aTextLineCannotBeSplitOrDriveATerminalWhateverItsValuesHold() {
    LineLogging.configure(LogLineFormat.TEXT, LogLevels.defaults(Level.INFO));
    String forged = "pvc-1\n2026-01-01T00:00:00.000Z INFO  calls - forged\r\u001b[31mred\u009b2J\u2028x\u202eabc\u007f";
    LogManager.getLogger("io.awscsi.test.Text").warn("refused name {}", forged,
        new IllegalArgumentException("cause says\nforged too", new IllegalStateException("inner\u001b]0;title\u0007")));

    String out = written();
    assertThat(out.lines().filter(l -> !l.startsWith("\t"))).as("the record's own line plus its causes' lines")
        .hasSize(3);
    assertThat(out).doesNotContain("\u001b", "\r", "\u009b", "\u2028", "\u202e", "\u007f", "\u0007");
    assertThat(out.lines().findFirst().orElseThrow()).endsWith("refused name pvc-1\\n2026-01-01T00:00:00.000Z INFO  "
        + "calls - forged\\r\\x1b[31mred\\x9b2J\\u2028x\\u202eabc\\x7f");
    assertThat(out).contains("java.lang.IllegalArgumentException: cause says\\nforged too\n",
        "Caused by: java.lang.IllegalStateException: inner\\x1b]0;title\\x07\n", "\t... ");
  }

  @Test
  void aJsonLineEscapesC1AndBidiControlsToo() throws Exception {
    LineLogging.configure(LogLineFormat.JSON, LogLevels.defaults(Level.INFO));
    ThreadContext.put("volumeId", "vol\u009b1\n");
    LogManager.getLogger("io.awscsi.test.Json").info("a\u001b[2J\u202eb\u0085c");

    String out = written();
    assertThat(out).hasLineCount(1).doesNotContain("\u001b", "\u009b", "\u202e", "\u0085")
        .contains("a\\u001b[2J\\u202eb\\u0085c", "vol\\u009b1\\n");
    JsonNode json = new ObjectMapper().readTree(out);
    assertThat(json.get("message").asText()).isEqualTo("a\u001b[2J\u202eb\u0085c");
  }

  @Test
  void aJsonLineIsOneEcsObjectWithTheCallFieldsAtTopLevel() throws Exception {
    LineLogging.configure(LogLineFormat.JSON, LogLevels.defaults(Level.INFO));
    ThreadContext.put("rpc", "NodeStageVolume");
    ThreadContext.put("volumeId", "vol-1");
    LogManager.getLogger("io.awscsi.test.Json").error("a \"quoted\"\nmessage\twith \\ and \u0001",
        new IllegalArgumentException("bad"));

    String out = written();
    assertThat(out).endsWith("}\n").hasLineCount(1);
    JsonNode json = new ObjectMapper().readTree(out);
    assertThat(json.get("log.level").asText()).isEqualTo("ERROR");
    assertThat(json.get("message").asText()).isEqualTo("a \"quoted\"\nmessage\twith \\ and \u0001");
    assertThat(json.get("log.logger").asText()).isEqualTo("io.awscsi.test.Json");
    assertThat(json.get("ecs.version").asText()).isEqualTo("1.2.0");
    assertThat(json.get("@timestamp").asText()).matches("\\d{4}-.*Z");
    assertThat(json.get("process.thread.name").asText()).isEqualTo(Thread.currentThread().getName());
    assertThat(json.get("rpc").asText()).isEqualTo("NodeStageVolume");
    assertThat(json.get("volumeId").asText()).isEqualTo("vol-1");
    assertThat(json.get("error.type").asText()).isEqualTo("java.lang.IllegalArgumentException");
    assertThat(json.get("error.message").asText()).isEqualTo("bad");
    assertThat(json.get("error.stack_trace").asText()).contains("LineLoggingTest");
  }

  @Test
  void listenersSeeTheRecordWithItsContext() {
    LineLogging.configure(LogLineFormat.TEXT, LogLevels.defaults(Level.INFO));
    List<LogRecord> seen = new ArrayList<>();
    java.util.function.Consumer<LogRecord> listener = seen::add;
    LineLogging.addListener(listener);
    try {
      ThreadContext.put("nodeId", "i-1");
      LogManager.getLogger("io.awscsi.test.Listen").info("hello");
    } finally {
      LineLogging.removeListener(listener);
    }
    assertThat(seen).anySatisfy(r -> {
      assertThat(r.message()).isEqualTo("hello");
      assertThat(r.context()).isEqualTo(Map.of("nodeId", "i-1"));
      assertThat(r.level()).isEqualTo(Level.INFO);
    });
  }

  @Test
  void concurrentLinesNeverInterleave() throws Exception {
    LineLogging.configure(LogLineFormat.JSON, LogLevels.defaults(Level.INFO));
    Logger log = LogManager.getLogger("io.awscsi.test.Concurrent");
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (int t = 0; t < 8; t++) {
        int thread = t;
        pool.submit(() -> {
          for (int i = 0; i < 300; i++) {
            log.info("thread {} line {} {}", thread, i, "x".repeat(200));
          }
        });
      }
    }
    String[] lines = written().split("\n");
    assertThat(lines).hasSize(8 * 300);
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      assertThat(json.readTree(line).get("message").asText()).matches("thread \\d line \\d+ x{200}");
    }
  }
}
