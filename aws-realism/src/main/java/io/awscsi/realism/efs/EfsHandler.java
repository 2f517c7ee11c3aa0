package io.awscsi.realism.efs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.awscsi.core.concurrent.KeyedLocks;
import io.awscsi.realism.ApiRequest;
import io.awscsi.realism.AwsError;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.proxy.AwsErrorException;
import io.awscsi.realism.proxy.PageTokens;
import io.awscsi.realism.proxy.PassthroughHandler;
import io.awscsi.realism.proxy.ProxyRequest;
import io.awscsi.realism.proxy.ProxyResponse;
import io.awscsi.realism.proxy.QueryParams;
import io.awscsi.realism.proxy.ServiceHandler;
import io.awscsi.realism.proxy.UpstreamClient;
import io.awscsi.realism.proxy.UpstreamErrorException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * EFS (REST JSON) in front of moto: ClientToken idempotency on CreateAccessPoint, FileSystemNotFound for an access
 * point on a file system that does not exist (moto makes one), the access-point quota per file system, MaxResults/NextToken paging on DescribeAccessPoints and AccessPointNotFound on DeleteAccessPoint. Other calls
 * go to moto unchanged.
 */
public final class EfsHandler implements ServiceHandler {

  static final String PREFIX = "/2015-02-01/";
  private static final String ACCESS_POINTS = PREFIX + "access-points";
  /** DescribeAccessPoints answers at most this many access points per page when MaxResults is not given. */
  private static final int DEFAULT_PAGE_SIZE = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a ClientToken created: the request body without the token, and the answer. */
  private record TokenRecord(JsonNode request, String accessPointId, byte[] response) {}

  private final UpstreamClient upstream;
  private final RealismProfile profile;
  private final Map<String, TokenRecord> tokens = new ConcurrentHashMap<>();
  private final KeyedLocks locks = new KeyedLocks();

  public EfsHandler(UpstreamClient upstream, RealismProfile profile) {
    this.upstream = upstream;
    this.profile = profile;
  }

  @Override
  public boolean accepts(ProxyRequest request) {
    return request.signingService().map("elasticfilesystem"::equals)
        .orElseGet(() -> request.path().startsWith(PREFIX));
  }

  @Override
  public ApiRequest describe(ProxyRequest request) {
    return new ApiRequest("efs", actionOf(request.method(), request.path()), request.method(), request.path(),
        QueryParams.parse(request.rawQuery()).asMap(), request.bodyText());
  }

  /** The EFS API action of a REST call. */
  static String actionOf(String method, String path) {
    String rest = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : path;
    String[] parts = rest.split("/");
    String collection = parts[0];
    boolean item = parts.length > 1;
    return switch (collection) {
      case "access-points" -> switch (method) {
        case "POST" -> "CreateAccessPoint";
        case "DELETE" -> "DeleteAccessPoint";
        default -> "DescribeAccessPoints";
      };
      case "file-systems" -> parts.length > 2 ? method + " file-systems/" + parts[2] : switch (method) {
        case "POST" -> "CreateFileSystem";
        case "DELETE" -> "DeleteFileSystem";
        case "PUT" -> "UpdateFileSystem";
        default -> "DescribeFileSystems";
      };
      case "mount-targets" -> switch (method) {
        case "POST" -> "CreateMountTarget";
        case "DELETE" -> "DeleteMountTarget";
        default -> item ? method + " mount-targets/" + parts[parts.length - 1] : "DescribeMountTargets";
      };
      case "resource-tags" -> switch (method) {
        case "POST" -> "TagResource";
        case "DELETE" -> "UntagResource";
        default -> "ListTagsForResource";
      };
      default -> method + " " + path;
    };
  }

  @Override
  public ProxyResponse handle(ProxyRequest request, ApiRequest call) {
    return switch (call.action()) {
      case "CreateAccessPoint" -> createAccessPoint(request);
      case "DescribeAccessPoints" -> describeAccessPoints(request);
      case "DeleteAccessPoint" -> deleteAccessPoint(request);
      default -> upstream.send(request);
    };
  }

  @Override
  public ProxyResponse render(AwsError error) {
    ObjectNode body = JSON.createObjectNode().put("ErrorCode", error.code()).put("Message", error.message());
    return new ProxyResponse(error.httpStatus(),
        Map.of("Content-Type", List.of("application/json"), "x-amzn-ErrorType", List.of(error.code())),
        write(body).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public AwsError throttlingError(ApiRequest call) {
    return AwsError.of(429, "ThrottlingException", "Rate exceeded");
  }

  @Override
  public Optional<String> errorCode(ProxyResponse response) {
    return PassthroughHandler.genericErrorCode(response);
  }

  @Override
  public void reset() {
    tokens.clear();
  }

  private ProxyResponse createAccessPoint(ProxyRequest request) {
    ObjectNode body = parseObject(request.bodyText());
    String fileSystemId = Optional.ofNullable(body.get("FileSystemId")).map(JsonNode::asText).orElse("");
    Optional<String> token = Optional.ofNullable(body.get("ClientToken")).map(JsonNode::asText);
    ObjectNode withoutToken = body.deepCopy();
    withoutToken.remove("ClientToken");
    String tokenKey = request.signingRegion().orElse("") + "|" + token.orElse("");
    List<String> lockKeys = token.isPresent() ? List.of(fileSystemId, tokenKey) : List.of(fileSystemId);
    return locks.withLocks(lockKeys, () -> {
      if (token.isPresent()) {
        TokenRecord known = tokens.get(tokenKey);
        if (known != null) {
          if (!known.request().equals(withoutToken)) {
            throw new AwsErrorException(AwsError.of(409, "AccessPointAlreadyExists", "An access point ("
                + known.accessPointId() + ") was already created with client token '" + token.get()
                + "' and other parameters; use a new client token for a different access point."));
          }
          return ProxyResponse.json(200, new String(known.response(), StandardCharsets.UTF_8));
        }
      }
      if (!fileSystemExists(request, fileSystemId)) {
        throw new AwsErrorException(AwsError.of(404, "FileSystemNotFound", "File system '" + fileSystemId
            + "' does not exist."));
      }
      int existing = listAccessPoints(request, "FileSystemId", fileSystemId).size();
      if (existing >= profile.accessPointsPerFileSystem()) {
        throw new AwsErrorException(AwsError.of(403, "AccessPointLimitExceeded", "File system " + fileSystemId
            + " already has " + existing + " access points, the limit (" + profile.accessPointsPerFileSystem()
            + "); delete unused access points or provision without access points."));
      }
      ProxyResponse response = upstream.send(request);
      if (!response.isError() && token.isPresent()) {
        String id = Optional.ofNullable(parseObject(response.bodyText()).get("AccessPointId"))
            .map(JsonNode::asText).orElse("");
        tokens.put(tokenKey, new TokenRecord(withoutToken, id, response.body()));
      }
      return response;
    });
  }

  private ProxyResponse describeAccessPoints(ProxyRequest request) {
    QueryParams params = QueryParams.parse(request.rawQuery());
    Optional<String> maxResults = params.get("MaxResults");
    int pageSize = DEFAULT_PAGE_SIZE;
    if (maxResults.isPresent()) {
      try {
        pageSize = Integer.parseInt(maxResults.get());
      } catch (NumberFormatException e) {
        pageSize = 0;
      }
      if (pageSize < 1) {
        throw AwsErrorException.badRequest("BadRequest", "MaxResults must be a number of at least 1, got '"
            + maxResults.get() + "'.");
      }
    }
    if (params.has("AccessPointId") && params.has("FileSystemId")) {
      throw AwsErrorException.badRequest("BadRequest",
          "Specify either an AccessPointId or a FileSystemId in the request, not both.");
    }
    QueryParams forwarded = params.withoutKeys("MaxResults", "NextToken");
    ProxyResponse response = upstream.send(request.withMethodPathQuery("GET", ACCESS_POINTS, forwarded.encode()));
    if (response.isError()) {
      return response;
    }
    ObjectNode body = parseObject(response.bodyText());
    var all = new ArrayList<JsonNode>();
    Optional.ofNullable(body.get("AccessPoints")).ifPresent(list -> list.forEach(all::add));
    Optional<String> token = params.get("NextToken").filter(t -> !t.isEmpty());
    PageTokens.Page<JsonNode> page;
    try {
      page = PageTokens.page(all, ap -> ap.path("AccessPointId").asText(), ap -> 1, pageSize, token,
          forwarded.fingerprint());
    } catch (IllegalArgumentException e) {
      throw AwsErrorException.badRequest("BadRequest", "NextToken '" + token.orElse("") + "' is not valid: "
          + e.getMessage() + ".");
    }
    ArrayNode pageItems = JSON.createArrayNode();
    page.items().forEach(pageItems::add);
    body.set("AccessPoints", pageItems);
    body.remove("NextToken");
    page.nextToken().ifPresent(next -> body.put("NextToken", next));
    return response.withBody(write(body));
  }

  private ProxyResponse deleteAccessPoint(ProxyRequest request) {
    String accessPointId = request.path().substring(request.path().lastIndexOf('/') + 1);
    return locks.withLocks(List.of(accessPointId), () -> {
      if (listAccessPoints(request, "AccessPointId", accessPointId).isEmpty()) {
        throw new AwsErrorException(AwsError.of(404, "AccessPointNotFound",
            "Access point '" + accessPointId + "' does not exist."));
      }
      ProxyResponse response = upstream.send(request);
      if (!response.isError()) {
        // EFS lets a client token be used again once its access point is gone.
        tokens.values().removeIf(record -> record.accessPointId().equals(accessPointId));
      }
      return response;
    });
  }

  /** Whether moto knows the file system. */
  private boolean fileSystemExists(ProxyRequest like, String fileSystemId) {
    ProxyResponse response = upstream.send(like.withMethodPathQuery("GET", PREFIX + "file-systems",
        "FileSystemId=" + URLEncoder.encode(fileSystemId, StandardCharsets.UTF_8)));
    if (response.status() == 404 || response.isError()) {
      return false;
    }
    JsonNode systems = parseObject(response.bodyText()).get("FileSystems");
    return systems != null && !systems.isEmpty();
  }

  /** Access points moto knows, by file system or by id; an unknown id is an empty list. */
  private List<JsonNode> listAccessPoints(ProxyRequest like, String parameter, String value) {
    String query = parameter + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    ProxyResponse response = upstream.send(like.withMethodPathQuery("GET", ACCESS_POINTS, query));
    if (response.status() == 404) {
      return List.of();
    }
    if (response.isError()) {
      throw new UpstreamErrorException(response);
    }
    var result = new ArrayList<JsonNode>();
    Optional.ofNullable(parseObject(response.bodyText()).get("AccessPoints")).ifPresent(l -> l.forEach(result::add));
    return result;
  }

  private static ObjectNode parseObject(String text) {
    try {
      JsonNode node = JSON.readTree(text.isBlank() ? "{}" : text);
      if (node instanceof ObjectNode object) {
        return object;
      }
    } catch (JsonProcessingException e) {
      // fall through to the client error below
    }
    throw AwsErrorException.badRequest("BadRequest", "The request body is not a JSON object.");
  }

  private static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
