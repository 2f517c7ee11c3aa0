package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.ProxyRequest;
import io.awscsi.realism.proxy.ProxyResponse;
import io.awscsi.realism.proxy.QueryParams;
import io.awscsi.realism.proxy.UpstreamClient;
import io.awscsi.realism.proxy.UpstreamErrorException;
import io.awscsi.realism.proxy.Xml;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The proxy's own EC2 calls to moto, made with the client's headers so that moto picks the same account and region.
 */
final class MotoEc2 {

  static final String DEFAULT_VERSION = "2016-11-15";
  private static final Pattern SIGNING_SERVICE =
      Pattern.compile("(Credential=[^/,]+/\\d{8}/[^/,]+/)[^/,]+(/aws4_request)");

  private final UpstreamClient upstream;

  MotoEc2(UpstreamClient upstream) {
    this.upstream = upstream;
  }

  /** Sends the client's request with these parameters; moto's answer as it is. */
  ProxyResponse send(ProxyRequest like, QueryParams params) {
    return upstream.send(like.withBody(params.encode()));
  }

  /** An internal call; moto's error goes to the client unchanged. */
  Document call(ProxyRequest like, String action, QueryParams params) {
    QueryParams full = params.with("Action", action)
        .with("Version", QueryParams.parse(like.bodyText()).get("Version").orElse(DEFAULT_VERSION));
    ProxyResponse response = send(like, full);
    if (response.isError()) {
      throw new UpstreamErrorException(response);
    }
    return Xml.parse(response.body());
  }

  Optional<VolumeView> volume(ProxyRequest like, String volumeId) {
    try {
      Document doc = call(like, "DescribeVolumes", QueryParams.parse("").with("VolumeId.1", volumeId));
      return Xml.items(doc.getDocumentElement(), "volumeSet").stream().findFirst().map(VolumeView::from);
    } catch (UpstreamErrorException e) {
      if (e.response().bodyText().contains("InvalidVolume.NotFound")) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The caller's account as the emulator sees it: STS GetCallerIdentity sent upstream with the caller's access key.
   * Emulators map keys to accounts their own way (moto: 123456789012; LocalStack: 000000000000 for a key that is not
   * AWS-shaped), as EC2 maps credentials to their account. Empty when the emulator has no STS or no key was sent.
   */
  Optional<String> callerAccount(ProxyRequest like) {
    Optional<String> authorization = like.header("Authorization")
        .filter(a -> SIGNING_SERVICE.matcher(a).find());
    if (authorization.isEmpty()) {
      return Optional.empty();
    }
    var headers = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
    String stsAuthorization = SIGNING_SERVICE.matcher(authorization.get()).replaceFirst("$1sts$2");
    headers.put("Authorization", List.of(stsAuthorization));
    headers.put("Content-Type", List.of("application/x-www-form-urlencoded; charset=utf-8"));
    like.header("X-Amz-Date").ifPresent(date -> headers.put("X-Amz-Date", List.of(date)));
    ProxyResponse response = upstream.send(new ProxyRequest("POST", "/", "", headers,
        "Action=GetCallerIdentity&Version=2011-06-15".getBytes(StandardCharsets.UTF_8)));
    if (response.isError()) {
      return Optional.empty();
    }
    Element root = Xml.parse(response.body()).getDocumentElement();
    return Xml.child(root, "GetCallerIdentityResult").flatMap(result -> Xml.text(result, "Account"))
        .filter(account -> !account.isBlank());
  }

  Optional<InstanceView> instance(ProxyRequest like, String instanceId) {
    try {
      Document doc = call(like, "DescribeInstances", QueryParams.parse("").with("InstanceId.1", instanceId));
      for (Element reservation : Xml.items(doc.getDocumentElement(), "reservationSet")) {
        for (Element instance : Xml.items(reservation, "instancesSet")) {
          return Optional.of(InstanceView.from(instance));
        }
      }
      return Optional.empty();
    } catch (UpstreamErrorException e) {
      if (e.response().bodyText().contains("InvalidInstanceID.NotFound")) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
