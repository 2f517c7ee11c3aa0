package io.awscsi.realism.proxy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.Fault;
import io.awscsi.realism.Latency;
import io.awscsi.realism.throttle.ActionThrottle;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The proxy's request pipeline: admin endpoints, API latency, per-action throttling, injected faults, then the service
 * handler; every call is counted.
 */
public final class RealismHttpHandler implements HttpHandler {

  private static final Logger LOG = LogManager.getLogger(RealismHttpHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final List<ServiceHandler> handlers;
  private final ActionThrottle throttle;
  private final FaultRegistry faults;
  private final CallRecorder recorder;
  private final Latency apiLatency;
  private final RandomGenerator random;
  private final Runnable fullReset;

  public RealismHttpHandler(List<ServiceHandler> handlers, ActionThrottle throttle, FaultRegistry faults,
                            CallRecorder recorder, Latency apiLatency, RandomGenerator random, Runnable fullReset) {
    this.handlers = List.copyOf(handlers);
    this.throttle = throttle;
    this.faults = faults;
    this.recorder = recorder;
    this.apiLatency = apiLatency;
    this.random = random;
    this.fullReset = fullReset;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      ProxyRequest request = read(exchange);
      ProxyResponse response;
      try {
        response = admin(request).orElseGet(() -> serve(request));
      } catch (RuntimeException e) {
        LOG.error("realism proxy: {} {} failed: {}", request.method(), request.path(), e.toString(), e);
        response = ProxyResponse.xml(500, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error>"
            + "<Code>InternalError</Code><Message>" + Xml.escape("realism proxy failed: " + e)
            + "</Message></Error></Errors><RequestID>proxy</RequestID></Response>");
      }
      write(exchange, response);
    }
  }

  private ProxyResponse serve(ProxyRequest request) {
    ServiceHandler handler = handlers.stream().filter(h -> h.accepts(request)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no handler accepts " + request.method() + " " + request.path()));
    ApiRequest call = handler.describe(request);
    pause(apiLatency.sample(random));
    if (!throttle.tryAcquire(call.service(), call.action())) {
      recorder.throttled(call.service(), call.action());
      return handler.render(handler.throttlingError(call));
    }
    Optional<AwsError> dropped = faults.holdWhileFrozen(call);
    if (dropped.isPresent()) {
      recorder.failed(call.service(), call.action(), dropped.get().code());
      return handler.render(dropped.get());
    }
    Optional<AwsError> fault = faults.match(call);
    if (fault.isPresent()) {
      recorder.failed(call.service(), call.action(), fault.get().code());
      return handler.render(fault.get());
    }
    ProxyResponse response;
    try {
      response = handler.handle(request, call);
    } catch (AwsErrorException e) {
      response = handler.render(e.error());
    } catch (UpstreamErrorException e) {
      response = e.response();
    }
    if (response.isError()) {
      String code = handler.errorCode(response).orElse("HTTP" + response.status());
      recorder.failed(call.service(), call.action(), code);
      LOG.debug("realism proxy: {} {} answered {} {}", call.service(), call.action(), response.status(), code);
    } else {
      recorder.succeeded(call.service(), call.action());
    }
    return response;
  }

  /** {@code /realism/...}: stats and resets for tests and for processes that drive the proxy from outside. */
  private Optional<ProxyResponse> admin(ProxyRequest request) {
    String path = request.path();
    if (path.equals("/moto-api/reset") && request.method().equals("POST")) {
      fullReset.run();
      return Optional.of(ProxyResponse.json(200, "{\"status\": \"ok\"}"));
    }
    if (!path.startsWith("/realism/")) {
      return Optional.empty();
    }
    for (ServiceHandler handler : handlers) {
      Optional<ProxyResponse> own = handler.admin(request);
      if (own.isPresent()) {
        return own;
      }
    }
    return Optional.of(switch (request.method() + " " + path) {
      case "GET /realism/stats" -> ProxyResponse.json(200, toJson(recorder.snapshot()));
      case "POST /realism/stats/reset" -> {
        recorder.reset();
        yield ProxyResponse.json(200, "{\"status\": \"ok\"}");
      }
      case "POST /realism/reset" -> {
        fullReset.run();
        yield ProxyResponse.json(200, "{\"status\": \"ok\"}");
      }
      case "GET /realism/health" -> ProxyResponse.json(200, "{\"status\": \"ok\"}");
      case "POST /realism/faults" -> addFault(request);
      case "POST /realism/stall" -> addStall(request);
      case "DELETE /realism/faults" -> {
        faults.clear();
        yield ProxyResponse.json(200, "{\"status\": \"ok\"}");
      }
      default -> ProxyResponse.json(404, "{\"message\": \"unknown realism endpoint " + path
          + "; use GET /realism/stats, POST /realism/stats/reset, POST /realism/reset, POST /realism/faults,"
          + " POST /realism/stall, DELETE /realism/faults\"}");
    });
  }

  /**
   * {@code POST /realism/faults} with {@code {"service": "ec2", "action": "AttachVolume", "status": 400, "code": "...",
   * "message": "...", "times": 0, "params": {"VolumeId": "vol-..."}}}: a fault for a process that drives the proxy
   * from outside (the cluster suite); {@code params} (optional) must all match, {@code times} 0 means until
   * {@code DELETE /realism/faults}.
   */
  private ProxyResponse addFault(ProxyRequest request) {
    FaultRequest r;
    try {
      r = JSON.readValue(request.bodyText(), FaultRequest.class);
      Map<String, String> params = r.params() == null ? Map.of() : Map.copyOf(r.params());
      faults.add(new Fault(r.service(), r.action(),
          call -> params.entrySet().stream().allMatch(p -> call.hasParam(p.getKey(), p.getValue())),
          AwsError.of(r.status() == 0 ? 400 : r.status(), r.code(), r.message()), r.times()));
    } catch (IOException | RuntimeException e) {
      return ProxyResponse.json(400, toJson(Map.of("message", "bad fault: " + e.getMessage())));
    }
    LOG.info("realism proxy: fault added: {} {} answers {} {}", r.service(), r.action(), r.code(), r.message());
    return ProxyResponse.json(200, "{\"status\": \"ok\"}");
  }

  /**
   * {@code POST /realism/stall} with {@code {"service": "efs", "action": "*", "seconds": 20}}: calls of that service
   * and action ({@code "*"}: every action) are held unanswered for that long, then served as usual (the cluster
   * suite's soak freezes the EFS API so). {@code DELETE /realism/faults} ends it early.
   */
  private ProxyResponse addStall(ProxyRequest request) {
    StallRequest r;
    try {
      r = JSON.readValue(request.bodyText(), StallRequest.class);
      if (r.service() == null || r.action() == null) {
        throw new IllegalArgumentException("service and action are required");
      }
      faults.stall(r.service(), r.action(), Duration.ofSeconds(r.seconds()));
    } catch (IOException | RuntimeException e) {
      return ProxyResponse.json(400, toJson(Map.of("message", "bad stall: " + e.getMessage())));
    }
    LOG.info("realism proxy: {} {} stalled for {} s", r.service(), r.action(), r.seconds());
    return ProxyResponse.json(200, "{\"status\": \"ok\"}");
  }

  private record StallRequest(String service, String action, long seconds) {}

  private record FaultRequest(String service, String action, int status, String code, String message, int times,
                              Map<String, String> params) {}

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write stats as JSON", e);
    }
  }

  private static void pause(Duration duration) {
    if (duration.isZero()) {
      return;
    }
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ProxyRequest read(HttpExchange exchange) throws IOException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    var uri = exchange.getRequestURI();
    return new ProxyRequest(exchange.getRequestMethod(), uri.getRawPath(), uri.getRawQuery(),
        exchange.getRequestHeaders(), body);
  }

  private static void write(HttpExchange exchange, ProxyResponse response) throws IOException {
    var headers = exchange.getResponseHeaders();
    response.headers().forEach(headers::put);
    boolean noBody = response.body().length == 0 || exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(response.status(), noBody ? -1 : response.body().length);
    if (!noBody) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(response.body());
      }
    }
  }
}
