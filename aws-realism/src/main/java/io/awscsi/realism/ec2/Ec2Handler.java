package io.awscsi.realism.ec2;

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
import io.awscsi.realism.proxy.Xml;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * EC2 (query protocol) in front of moto: asynchronous volume, attachment, snapshot and modification states, the
 * errors real EC2 gives and moto does not, ClientToken idempotency and MaxResults/NextToken paging. Actions it does not
 * know go to moto unchanged.
 */
public final class Ec2Handler implements ServiceHandler {

  static final String NAMESPACE = "http://ec2.amazonaws.com/doc/2016-11-15/";

  /** MaxResults bounds of the paged Describe calls, and the id list that MaxResults cannot be combined with. */
  private record PagingRule(int min, int max, String idList, String idListWireName) {}

  private static final Map<String, PagingRule> PAGING = Map.of(
      "DescribeVolumes", new PagingRule(5, 1000, "VolumeId", "volumeSet"),
      "DescribeSnapshots", new PagingRule(5, 1000, "SnapshotId", "snapshotSet"),
      "DescribeInstances", new PagingRule(5, 1000, "InstanceId", "instancesSet"),
      "DescribeVolumesModifications", new PagingRule(5, 500, null, null));

  /** An Outpost's ARN as EC2 accepts it in OutpostArn. */
  private static final Pattern OUTPOST_ARN = Pattern.compile(
      "arn:aws[a-z-]*:outposts:[a-z]{2}(-[a-z]+)+-\\d+:\\d{12}:outpost/op-[0-9a-f]{1,32}");

  private final UpstreamClient upstream;
  private final MotoEc2 moto;
  private final Ec2State state;
  private final Ec2Views views;
  private final Clock clock;
  private final RandomGenerator random;
  private final RealismProfile profile;
  private final KeyedLocks locks = new KeyedLocks();
  private final Map<String, String> accounts = new ConcurrentHashMap<>();

  public Ec2Handler(UpstreamClient upstream, Ec2State state, Clock clock, RandomGenerator random,
                    RealismProfile profile) {
    this.upstream = upstream;
    this.moto = new MotoEc2(upstream);
    this.state = state;
    this.views = new Ec2Views(state);
    this.clock = clock;
    this.random = random;
    this.profile = profile;
  }

  @Override
  public boolean accepts(ProxyRequest request) {
    return request.signingService().map("ec2"::equals)
        .orElseGet(() -> request.path().equals("/") && request.bodyText().contains("Action="));
  }

  @Override
  public ApiRequest describe(ProxyRequest request) {
    QueryParams params = params(request);
    return new ApiRequest("ec2", params.get("Action").orElse("Unknown"), request.method(), request.path(),
        params.asMap(), request.bodyText());
  }

  private static QueryParams params(ProxyRequest request) {
    return request.method().equals("GET") ? QueryParams.parse(request.rawQuery())
        : QueryParams.parse(request.bodyText());
  }

  @Override
  public ProxyResponse handle(ProxyRequest request, ApiRequest call) {
    QueryParams params = params(request);
    return switch (call.action()) {
      case "CreateVolume" -> createVolume(request, params);
      case "CopyVolumes" -> copyVolumes(request, params);
      case "DeleteVolume" -> deleteVolume(request, params);
      case "AttachVolume" -> attachVolume(request, params);
      case "DetachVolume" -> detachVolume(request, params);
      case "ModifyVolume" -> modifyVolume(request, params);
      case "CreateSnapshot" -> createSnapshot(request, params);
      case "CreateSnapshots" -> createSnapshots(request, params);
      case "CreateSubnet" -> createSubnet(request, params);
      case "RunInstances" -> runInstances(request, params);
      case "DeleteSnapshot" -> deleteSnapshot(request, params);
      case "DescribeVolumes" -> describeVolumes(request, params);
      case "DescribeSnapshots" -> describeSnapshots(request, params);
      case "DescribeInstances" -> describeInstances(request, params);
      case "DescribeVolumesModifications" -> describeVolumesModifications(request, params);
      case "DescribeVolumeStatus" -> describeVolumeStatus(request, params);
      default -> upstream.send(request);
    };
  }

  @Override
  public ProxyResponse render(AwsError error) {
    return ProxyResponse.xml(error.httpStatus(), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<Response><Errors><Error><Code>" + Xml.escape(error.code()) + "</Code><Message>"
        + Xml.escape(error.message()) + "</Message></Error></Errors><RequestID>" + UUID.randomUUID()
        + "</RequestID></Response>");
  }

  @Override
  public AwsError throttlingError(ApiRequest call) {
    return Ec2Errors.requestLimitExceeded();
  }

  @Override
  public Optional<String> errorCode(ProxyResponse response) {
    return PassthroughHandler.genericErrorCode(response);
  }

  @Override
  public void reset() {
    state.reset();
  }

  /** Tests: attachments of this volume stay {@code attaching} (the current one too) until released. */
  public void holdAttaching(String volumeId) {
    state.hold(volumeId, clock.instant());
  }

  public void releaseAttaching(String volumeId) {
    state.release(volumeId, clock.instant());
  }

  /**
   * {@code POST /realism/ec2/attachments/hold?volumeId=vol-...} and {@code .../release?volumeId=...}:
   * {@link #holdAttaching} and {@link #releaseAttaching} for a process outside this one (the cluster suite holds an
   * attach in {@code attaching}, as EC2 sometimes does).
   */
  @Override
  public Optional<ProxyResponse> admin(ProxyRequest request) {
    String path = request.path();
    if (!request.method().equals("POST") || !path.startsWith("/realism/ec2/attachments/")) {
      return Optional.empty();
    }
    Optional<String> volumeId = QueryParams.parse(request.rawQuery() == null ? "" : request.rawQuery())
        .get("volumeId");
    if (volumeId.isEmpty() || !volumeId.get().startsWith("vol-")) {
      return Optional.of(ProxyResponse.json(400, "{\"message\": \"" + path + " needs ?volumeId=vol-...\"}"));
    }
    switch (path) {
      case "/realism/ec2/attachments/hold" -> holdAttaching(volumeId.get());
      case "/realism/ec2/attachments/release" -> releaseAttaching(volumeId.get());
      default -> {
        return Optional.of(ProxyResponse.json(404, "{\"message\": \"unknown endpoint " + path
            + "; use /realism/ec2/attachments/hold or /release\"}"));
      }
    }
    return Optional.of(ProxyResponse.json(200, "{\"status\": \"ok\"}"));
  }

  // ---- volumes ----

  private ProxyResponse createVolume(ProxyRequest request, QueryParams params) {
    Optional<String> token = params.get("ClientToken");
    String fingerprint = params.fingerprint("Action", "Version", "ClientToken");
    String tokenKey = "CreateVolume|" + request.signingRegion().orElse("") + "|" + token.orElse("");
    List<String> lockKeys = token.isPresent() ? List.of(tokenKey) : List.of();
    return locks.withLocks(lockKeys, () -> {
      if (token.isPresent()) {
        Optional<ClientTokenRecord> known = state.clientToken(tokenKey);
        if (known.isPresent()) {
          return replayVolume(known.get(), fingerprint, token.get());
        }
      }
      Optional<String> outpost = outpostArn(params);
      ProxyResponse response = upstream.send(request);
      if (response.isError()) {
        return response;
      }
      Document doc = Xml.parse(response.body());
      Element root = doc.getDocumentElement();
      String volumeId = Xml.text(root, "volumeId").orElseThrow();
      outpost.ifPresent(arn -> state.placeOnOutpost(volumeId, arn));
      Instant now = clock.instant();
      state.addCreation(new VolumeCreation(volumeId, now.plus(profile.volumeCreation().sample(random))));
      if (params.get("SnapshotId").isPresent()) {
        startInitialization(volumeId, Xml.text(root, "size").map(Integer::parseInt).orElse(1), params, now);
      }
      views.rewriteVolume(root, now);
      String body = Xml.write(doc);
      token.ifPresent(t -> state.rememberClientToken(tokenKey, new ClientTokenRecord(fingerprint, volumeId, body)));
      return response.withBody(body);
    });
  }

  /** A repeated ClientToken: the first answer again (its volume in its current state), or a mismatch. */
  private ProxyResponse replayVolume(ClientTokenRecord known, String fingerprint, String token) {
    if (!known.fingerprint().equals(fingerprint)) {
      throw Ec2Errors.idempotentParameterMismatch(token);
    }
    Document doc = Xml.parse(known.responseBody().getBytes(StandardCharsets.UTF_8));
    Element root = doc.getDocumentElement();
    Instant now = clock.instant();
    List<Element> volumes = Xml.items(root, "volumeSet");
    if (volumes.isEmpty()) {
      Xml.setText(root, "status", "available");
      views.rewriteVolume(root, now);
    } else {
      volumes.forEach(volume -> {
        Xml.setText(volume, "status", "available");
        views.rewriteVolume(volume, now);
      });
    }
    return ProxyResponse.xml(200, Xml.write(doc));
  }

  /** moto has no CopyVolumes: a CreateVolume in the source's zone with the source's settings stands in for it. */
  private ProxyResponse copyVolumes(ProxyRequest request, QueryParams params) {
    String sourceId = params.get("SourceVolumeId").orElseThrow(() -> Ec2Errors.missingParameter("SourceVolumeId"));
    Optional<String> token = params.get("ClientToken");
    String fingerprint = params.fingerprint("Action", "Version", "ClientToken");
    String tokenKey = "CopyVolumes|" + request.signingRegion().orElse("") + "|" + token.orElse("");
    List<String> lockKeys = token.isPresent() ? List.of(tokenKey, sourceId) : List.of(sourceId);
    return locks.withLocks(lockKeys, () -> {
      if (token.isPresent()) {
        Optional<ClientTokenRecord> known = state.clientToken(tokenKey);
        if (known.isPresent()) {
          return replayVolume(known.get(), fingerprint, token.get());
        }
      }
      Instant now = clock.instant();
      VolumeView source = moto.volume(request, sourceId).orElseThrow(() -> Ec2Errors.volumeNotFound(sourceId));
      if (state.creating(sourceId, now)) {
        throw Ec2Errors.incorrectState("The source volume '" + sourceId + "' is not 'available' or 'in-use'.");
      }
      int size = params.get("Size").map(Integer::parseInt).orElse(source.config().size());
      if (size < source.config().size()) {
        throw Ec2Errors.invalidParameterValue("The size of the copy (" + size
            + " GiB) cannot be smaller than the source volume (" + source.config().size() + " GiB).");
      }
      String type = params.get("VolumeType").orElse(source.config().volumeType());
      var create = new LinkedHashMap<String, String>();
      create.put("AvailabilityZone", source.availabilityZone());
      create.put("Size", String.valueOf(size));
      create.put("VolumeType", type);
      params.get("Iops").or(() -> Optional.ofNullable(type.equals(source.config().volumeType())
          ? source.config().iops() : null).map(String::valueOf)).ifPresent(iops -> create.put("Iops", iops));
      params.get("Throughput").ifPresent(throughput -> create.put("Throughput", throughput));
      params.get("MultiAttachEnabled").ifPresent(multi -> create.put("MultiAttachEnabled", multi));
      if (source.encrypted()) {
        create.put("Encrypted", "true");
        if (source.kmsKeyId() != null) {
          create.put("KmsKeyId", source.kmsKeyId());
        }
      }
      params.asMap().forEach((key, value) -> {
        if (key.startsWith("TagSpecification.")) {
          create.put(key, value);
        }
      });
      Document created = moto.call(request, "CreateVolume", QueryParams.of(create));
      Element volume = created.getDocumentElement();
      String volumeId = Xml.text(volume, "volumeId").orElseThrow();
      state.addCreation(new VolumeCreation(volumeId, now.plus(profile.volumeCreation().sample(random))));
      state.addCopySource(volumeId, sourceId);
      // CopyVolumes takes no OutpostArn: a copy is where its source is.
      state.outpost(sourceId).ifPresent(arn -> state.placeOnOutpost(volumeId, arn));
      startInitialization(volumeId, size, params, now);

      Document answer = newResponse("CopyVolumesResponse");
      Element item = Xml.appendElement(Xml.appendElement(answer.getDocumentElement(), "volumeSet", null), "item", null);
      for (var node = volume.getFirstChild(); node != null; node = node.getNextSibling()) {
        if (node instanceof Element child && !child.getTagName().equals("requestId")) {
          item.appendChild(answer.importNode(child, true));
        }
      }
      views.rewriteVolume(item, now);
      String body = Xml.write(answer);
      token.ifPresent(t -> state.rememberClientToken(tokenKey, new ClientTokenRecord(fingerprint, volumeId, body)));
      return ProxyResponse.xml(200, body);
    });
  }

  /**
   * A restored or copied volume initializes for the profile's time, or for size / VolumeInitializationRate (MiB/s)
   * when that is sooner; with a rate, DescribeVolumeStatus also estimates the time left, as EC2 does.
   */
  private void startInitialization(String volumeId, int sizeGiB, QueryParams params, Instant now) {
    Duration time = profile.volumeInitialization();
    Optional<Integer> rate = params.get("VolumeInitializationRate").map(Integer::parseInt).filter(r -> r > 0);
    if (rate.isPresent()) {
      Duration atRate = Duration.ofSeconds(sizeGiB * 1024L / rate.get());
      time = atRate.compareTo(time) < 0 ? atRate : time;
    }
    if (time.isPositive()) {
      state.addInitialization(new VolumeInitializationProgress(volumeId, now, now.plus(time), rate.isPresent()));
    }
  }

  /**
   * DescribeVolumeStatus of named volumes, answered here (moto has no initialization): {@code initialization-state}
   * {@code initializing} with EC2's InitializationStatusDetails while a restore runs, {@code completed} after.
   * Without volume ids the question goes to moto.
   */
  private ProxyResponse describeVolumeStatus(ProxyRequest request, QueryParams params) {
    List<String> volumeIds = params.asMap().entrySet().stream().filter(e -> e.getKey().startsWith("VolumeId."))
        .map(Map.Entry::getValue).toList();
    if (volumeIds.isEmpty()) {
      return upstream.send(request);
    }
    Instant now = clock.instant();
    Document answer = newResponse("DescribeVolumeStatusResponse");
    Element set = Xml.appendElement(answer.getDocumentElement(), "volumeStatusSet", null);
    for (String volumeId : volumeIds) {
      VolumeView volume = moto.volume(request, volumeId).orElseThrow(() -> Ec2Errors.volumeNotFound(volumeId));
      Optional<VolumeInitializationProgress> init = state.initialization(volumeId);
      boolean initializing = init.isPresent() && init.get().initializing(now);
      Element item = Xml.appendElement(set, "item", null);
      Xml.appendElement(item, "volumeId", volumeId);
      Xml.appendElement(item, "availabilityZone", volume.availabilityZone());
      Element status = Xml.appendElement(item, "volumeStatus", null);
      Xml.appendElement(status, "status", "ok");
      Element details = Xml.appendElement(status, "details", null);
      Element io = Xml.appendElement(details, "item", null);
      Xml.appendElement(io, "name", "io-enabled");
      Xml.appendElement(io, "status", "passed");
      if (init.isPresent()) {
        Element initState = Xml.appendElement(details, "item", null);
        Xml.appendElement(initState, "name", "initialization-state");
        Xml.appendElement(initState, "status", initializing ? "initializing" : "completed");
        Element progress = Xml.appendElement(item, "initializationStatusDetails", null);
        Xml.appendElement(progress, "initializationType", init.get().provisionedRate() ? "provisioned-rate"
            : "default");
        Xml.appendElement(progress, "progress", Integer.toString(init.get().percentDone(now)));
        if (init.get().provisionedRate()) {
          Xml.appendElement(progress, "estimatedTimeToCompleteInSeconds",
              Long.toString(init.get().secondsLeft(now)));
        }
      }
      Xml.appendElement(item, "eventsSet", null);
      Xml.appendElement(item, "actionsSet", null);
    }
    return ProxyResponse.xml(200, Xml.write(answer));
  }

  private ProxyResponse deleteVolume(ProxyRequest request, QueryParams params) {
    String volumeId = params.get("VolumeId").orElseThrow(() -> Ec2Errors.missingParameter("VolumeId"));
    return locks.withLocks(List.of(volumeId), () -> {
      Instant now = clock.instant();
      for (Attachment attachment : state.attachments(volumeId, now)) {
        throw Ec2Errors.volumeInUse("Volume " + volumeId + " is currently attached to " + attachment.instanceId());
      }
      ProxyResponse response = upstream.send(request);
      if (!response.isError()) {
        state.forgetVolume(volumeId);
      }
      return response;
    });
  }

  private ProxyResponse modifyVolume(ProxyRequest request, QueryParams params) {
    String volumeId = params.get("VolumeId").orElseThrow(() -> Ec2Errors.missingParameter("VolumeId"));
    return locks.withLocks(List.of(volumeId), () -> {
      VolumeView volume = moto.volume(request, volumeId).orElseThrow(() -> Ec2Errors.volumeNotFound(volumeId));
      Instant now = clock.instant();
      if (state.creating(volumeId, now)) {
        throw Ec2Errors.incorrectState("Volume '" + volumeId + "' is in the 'creating' state.");
      }
      Optional<VolumeModification> latest = state.latestModification(volumeId);
      if (latest.isPresent() && latest.get().state(now).inProgress()) {
        throw AwsErrorException.badRequest("IncorrectModificationState", "Volume " + volumeId
            + " is already being modified (modification state '" + latest.get().state(now).wireName() + "').");
      }
      if (state.modificationsSince(volumeId, now.minus(profile.modificationWindow()))
          >= profile.modificationsPerWindow()) {
        throw AwsErrorException.badRequest("VolumeModificationRateExceeded", "You've reached the maximum "
            + "modification rate per volume limit (" + profile.modificationsPerWindow() + " per "
            + profile.modificationWindow().toHours() + " hours) for " + volumeId + ".");
      }
      // moto applied earlier modifications at once, so its configuration is the one this modification starts from.
      VolumeConfig original = volume.config();
      VolumeConfig target = original.modifiedBy(params);
      if (target.size() < original.size()) {
        throw Ec2Errors.invalidParameterValue("New size cannot be smaller than existing size (volume " + volumeId
            + " is " + original.size() + " GiB, requested " + target.size() + " GiB).");
      }
      ProxyResponse response = upstream.send(request);
      if (response.isError()) {
        return response;
      }
      Instant optimizingAt = now.plus(profile.modificationModifying().sample(random));
      var modification = new VolumeModification(volumeId, original, target, now, optimizingAt,
          optimizingAt.plus(profile.modificationOptimizing().sample(random)));
      state.addModification(modification);
      Document answer = newResponse("ModifyVolumeResponse");
      answer.getDocumentElement().appendChild(
          Ec2Views.modificationElement(answer, "volumeModification", modification, now));
      return ProxyResponse.xml(200, Xml.write(answer));
    });
  }

  // ---- attachments ----

  private ProxyResponse attachVolume(ProxyRequest request, QueryParams params) {
    String volumeId = params.get("VolumeId").orElseThrow(() -> Ec2Errors.missingParameter("VolumeId"));
    String instanceId = params.get("InstanceId").orElseThrow(() -> Ec2Errors.missingParameter("InstanceId"));
    String device = params.get("Device").orElseThrow(() -> Ec2Errors.missingParameter("Device"));
    Integer ebsCardIndex = ebsCardIndex(params);
    return locks.withLocks(List.of(volumeId, instanceId), () -> {
      VolumeView volume = moto.volume(request, volumeId).orElseThrow(() -> Ec2Errors.volumeNotFound(volumeId));
      InstanceView instance = moto.instance(request, instanceId)
          .orElseThrow(() -> Ec2Errors.instanceNotFound(instanceId));
      Instant now = clock.instant();
      if (!volume.availabilityZone().equals(instance.availabilityZone())) {
        throw AwsErrorException.badRequest("InvalidVolume.ZoneMismatch", "The volume '" + volumeId
            + "' is not in the same availability zone as instance '" + instanceId + "'");
      }
      Optional<String> volumeOutpost = state.outpost(volumeId);
      Optional<String> instanceOutpost = state.outpost(instanceId);
      if (!volumeOutpost.equals(instanceOutpost)) {
        // EC2: a volume on an Outpost serves instances on that Outpost only, and a Region volume no Outpost instance.
        throw Ec2Errors.invalidParameterValue("The volume '" + volumeId + "' is "
            + volumeOutpost.map(arn -> "on Outpost " + arn).orElse("in the Region") + " and the instance '"
            + instanceId + "' is " + instanceOutpost.map(arn -> "on Outpost " + arn).orElse("in the Region")
            + "; a volume can only be attached to an instance in the same place.");
      }
      if (state.creating(volumeId, now)) {
        throw Ec2Errors.incorrectState(volumeId + " is not 'available'.");
      }
      var attachedTo = new ArrayList<String>();
      volume.attachments().stream().map(VolumeView.AttachmentView::instanceId)
          .filter(id -> !state.detached(volumeId, id, now)).forEach(attachedTo::add);
      state.attachments(volumeId, now).stream().map(Attachment::instanceId)
          .filter(id -> !attachedTo.contains(id)).forEach(attachedTo::add);
      if (attachedTo.contains(instanceId)) {
        throw Ec2Errors.volumeInUse(volumeId + " is already attached to instance " + instanceId);
      }
      if (!attachedTo.isEmpty() && !volume.config().multiAttach()) {
        throw Ec2Errors.volumeInUse(volumeId + " is already attached to an instance");
      }
      var devices = new ArrayList<String>();
      var volumes = new ArrayList<String>();
      instance.blockDevices().stream().filter(d -> !state.detached(d.volumeId(), instanceId, now)).forEach(d -> {
        devices.add(d.deviceName());
        volumes.add(d.volumeId());
      });
      for (Attachment a : state.attachmentsOnInstance(instanceId, now)) {
        if (!volumes.contains(a.volumeId())) {
          devices.add(a.device());
          volumes.add(a.volumeId());
        }
      }
      if (devices.contains(device)) {
        throw Ec2Errors.invalidParameterValue("Invalid value '" + device + "' for unixDevice. Attachment point "
            + device + " is already in use");
      }
      if (volumes.size() >= profile.attachmentLimit()) {
        throw AwsErrorException.badRequest("AttachmentLimitExceeded", "Volume limit exceeded: instance "
            + instanceId + " already has " + volumes.size() + " volumes attached (limit "
            + profile.attachmentLimit() + ").");
      }
      ProxyResponse response = upstream.send(request);
      if (response.isError()) {
        return response;
      }
      Document doc = Xml.parse(response.body());
      Element root = doc.getDocumentElement();
      String attachTime = Xml.text(root, "attachTime").orElse(Ec2Views.timestamp(now));
      Attachment stored = state.putAttachment(Attachment.attaching(volumeId, instanceId, device, attachTime,
          now.plus(profile.volumeAttach().sample(random)), ebsCardIndex));
      Xml.setText(root, "status", stored.state(now).wireName());
      if (ebsCardIndex != null) {
        Xml.setText(root, "ebsCardIndex", ebsCardIndex.toString());
      }
      return response.withBody(Xml.write(doc));
    });
  }

  /**
   * AttachVolume's {@code EbsCardIndex} (instance types with several EBS cards), which moto ignores: recorded with the
   * attachment and shown where EC2 shows it. Only the value's form is checked: EC2 documents no per-card attachment
   * limit nor its answer to a card the type lacks, so the layer refuses neither.
   */
  private static Integer ebsCardIndex(QueryParams params) {
    Optional<String> value = params.get("EbsCardIndex");
    if (value.isEmpty()) {
      return null;
    }
    try {
      int index = Integer.parseInt(value.get());
      if (index >= 0) {
        return index;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw Ec2Errors.invalidParameterValue("Invalid value '" + value.get() + "' for EbsCardIndex.");
  }

  private ProxyResponse detachVolume(ProxyRequest request, QueryParams params) {
    String volumeId = params.get("VolumeId").orElseThrow(() -> Ec2Errors.missingParameter("VolumeId"));
    return locks.withLocks(List.of(volumeId), () -> {
      VolumeView volume = moto.volume(request, volumeId).orElseThrow(() -> Ec2Errors.volumeNotFound(volumeId));
      Instant now = clock.instant();
      Optional<String> requestedInstance = params.get("InstanceId");
      Predicate<String> requested = instanceId -> requestedInstance.map(instanceId::equals).orElse(true);
      List<Attachment> live = state.attachments(volumeId, now);
      // Attachments moto knows plus those only the proxy knows (other attachments of a multi-attached volume).
      var current = new LinkedHashMap<String, Attachment>();
      for (VolumeView.AttachmentView a : volume.attachments()) {
        if (requested.test(a.instanceId()) && !state.detached(volumeId, a.instanceId(), now)) {
          current.put(a.instanceId(), state.attachment(volumeId, a.instanceId(), now).orElse(
              Attachment.attaching(volumeId, a.instanceId(), a.device(), a.attachTime(), now)));
        }
      }
      live.stream().filter(a -> a.state(now) != AttachmentState.DETACHING && requested.test(a.instanceId()))
          .forEach(a -> current.putIfAbsent(a.instanceId(), a));
      if (current.isEmpty()) {
        if (live.stream().anyMatch(a -> requested.test(a.instanceId()))) {
          throw Ec2Errors.incorrectState("Volume '" + volumeId + "' is in the 'detaching' state.");
        }
        if (live.isEmpty() && volume.attachments().isEmpty()) {
          throw Ec2Errors.incorrectState("Volume '" + volumeId + "' is in the 'available' state.");
        }
        throw AwsErrorException.badRequest("InvalidAttachment.NotFound", "Volume " + volumeId
            + " can not be detached from " + requestedInstance.orElse("") + " because it is not attached");
      }
      if (current.size() > 1) {
        throw Ec2Errors.missingParameter("InstanceId (volume " + volumeId + " is attached to several instances)");
      }
      Attachment target = current.values().iterator().next();
      if (params.get("Device").filter(d -> !d.equals(target.device())).isPresent()) {
        throw AwsErrorException.badRequest("InvalidAttachment.NotFound", "Volume " + volumeId
            + " is not attached to " + target.instanceId() + " as " + params.get("Device").orElseThrow());
      }
      boolean motoKnows = volume.attachments().stream().anyMatch(a -> a.instanceId().equals(target.instanceId()));
      // Record the detachment before moto forgets the attachment, so the device stays in use throughout.
      state.putAttachment(target.detaching(now, now.plus(profile.volumeDetach().sample(random))));
      if (!motoKnows) {
        Document answer = newResponse("DetachVolumeResponse");
        Element root = answer.getDocumentElement();
        Xml.appendElement(root, "volumeId", volumeId);
        Xml.appendElement(root, "instanceId", target.instanceId());
        Xml.appendElement(root, "device", target.device());
        Xml.appendElement(root, "status", "detaching");
        Xml.appendElement(root, "attachTime", target.attachTime());
        return ProxyResponse.xml(200, Xml.write(answer));
      }
      ProxyResponse response = moto.send(request, params.with("InstanceId", target.instanceId()));
      if (response.isError()) {
        state.putAttachment(target);
        return response;
      }
      Document doc = Xml.parse(response.body());
      Xml.setText(doc.getDocumentElement(), "status", "detaching");
      return response.withBody(Xml.write(doc));
    });
  }

  // ---- snapshots ----

  /**
   * CreateSnapshot, with EC2's Outposts rule (moto ignores OutpostArn): a local snapshot only of a volume on that same
   * Outpost; without OutpostArn the snapshot goes to the Region.
   */
  private ProxyResponse createSnapshot(ProxyRequest request, QueryParams params) {
    Optional<String> outpost = outpostArn(params);
    if (outpost.isPresent()) {
      String volumeId = params.get("VolumeId").orElseThrow(() -> Ec2Errors.missingParameter("VolumeId"));
      Optional<String> volumeOutpost = state.outpost(volumeId);
      if (!volumeOutpost.equals(outpost)) {
        throw Ec2Errors.invalidParameterValue("The volume '" + volumeId + "' is "
            + volumeOutpost.map(arn -> "on Outpost " + arn).orElse("not on an Outpost")
            + "; a local snapshot must be created on the same Outpost as its volume (omit OutpostArn for the "
            + "Region).");
      }
    }
    ProxyResponse response = upstream.send(request);
    if (response.isError()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    Element root = doc.getDocumentElement();
    Instant now = clock.instant();
    Xml.text(root, "snapshotId").ifPresent(id -> {
      state.addSnapshot(new SnapshotProgress(id, now, now.plus(profile.snapshotCompletion().sample(random))));
      outpost.ifPresent(arn -> state.placeOnOutpost(id, arn));
    });
    views.rewriteSnapshot(root, now);
    return response.withBody(Xml.write(doc));
  }

  /**
   * CreateSnapshots as EC2 takes it: the volumes attached to the instance at one point in time (one start time for
   * all), less the boot volume when {@code InstanceSpecification.ExcludeBootVolume} and the data volumes of
   * {@code InstanceSpecification.ExcludeDataVolumeId.N}, each then pending with its own progress. moto snapshots
   * every attached volume whatever ExcludeDataVolumeIds says, so the excluded ones are deleted from moto again and
   * left out of the answer. Its token bucket is its own, as every action's (EC2 throttles it apart from CreateSnapshot).
   */
  private ProxyResponse createSnapshots(ProxyRequest request, QueryParams params) {
    params.get("InstanceSpecification.InstanceId")
        .orElseThrow(() -> Ec2Errors.missingParameter("InstanceSpecification.InstanceId"));
    // The SDKs send the member name of the list (ExcludeDataVolumeId.N); the plural is accepted as well.
    Set<String> excluded = new java.util.HashSet<>(params.list("InstanceSpecification.ExcludeDataVolumeId"));
    excluded.addAll(params.list("InstanceSpecification.ExcludeDataVolumeIds"));
    ProxyResponse response = upstream.send(request);
    if (response.isError()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    Element root = doc.getDocumentElement();
    Instant now = clock.instant();
    for (Element item : Xml.items(root, "snapshotSet")) {
      String id = Xml.text(item, "snapshotId").orElse("");
      if (excluded.contains(Xml.text(item, "volumeId").orElse(""))) {
        moto.call(request, "DeleteSnapshot", QueryParams.of(Map.of("SnapshotId", id)));
        item.getParentNode().removeChild(item);
        continue;
      }
      state.addSnapshot(new SnapshotProgress(id, now, now.plus(profile.snapshotCompletion().sample(random)), true));
      Xml.setText(item, "startTime", Ec2Views.timestamp(now));
      views.rewriteSnapshot(item, now);
    }
    return response.withBody(Xml.write(doc));
  }

  // ---- Outposts ----

  /** The request's OutpostArn, checked as EC2 checks it; empty when the request has none. */
  private static Optional<String> outpostArn(QueryParams params) {
    Optional<String> arn = params.get("OutpostArn");
    if (arn.isPresent() && !OUTPOST_ARN.matcher(arn.get()).matches()) {
      throw Ec2Errors.invalidOutpostArn(arn.get());
    }
    return arn;
  }

  /** CreateSubnet: moto ignores OutpostArn; a subnet made with one is on that Outpost, and so its instances. */
  private ProxyResponse createSubnet(ProxyRequest request, QueryParams params) {
    Optional<String> outpost = outpostArn(params);
    ProxyResponse response = upstream.send(request);
    if (response.isError() || outpost.isEmpty()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    Xml.child(doc.getDocumentElement(), "subnet").ifPresent(subnet -> {
      state.placeOnOutpost(Xml.text(subnet, "subnetId").orElseThrow(), outpost.get());
      Xml.setText(subnet, "outpostArn", outpost.get());
    });
    return response.withBody(Xml.write(doc));
  }

  /** RunInstances: instances launched into an Outpost subnet are on that Outpost (DescribeInstances shows it). */
  private ProxyResponse runInstances(ProxyRequest request, QueryParams params) {
    Optional<String> outpost = params.get("SubnetId").or(() -> params.get("NetworkInterface.1.SubnetId"))
        .flatMap(state::outpost);
    ProxyResponse response = upstream.send(request);
    if (response.isError() || outpost.isEmpty()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    for (Element instance : Xml.items(doc.getDocumentElement(), "instancesSet")) {
      state.placeOnOutpost(Xml.text(instance, "instanceId").orElseThrow(), outpost.get());
      Xml.setText(instance, "outpostArn", outpost.get());
    }
    return response.withBody(Xml.write(doc));
  }

  private ProxyResponse deleteSnapshot(ProxyRequest request, QueryParams params) {
    ProxyResponse response = upstream.send(request);
    if (!response.isError()) {
      params.get("SnapshotId").ifPresent(state::forgetSnapshot);
    }
    return response;
  }

  // ---- describes ----

  private ProxyResponse describeVolumes(ProxyRequest request, QueryParams params) {
    return describe(request, params, "DescribeVolumes", "volumeSet", Set.of("status", "attachment.status"),
        views::rewriteVolume, item -> Xml.text(item, "volumeId").orElse(""), item -> 1,
        (filter, item) -> switch (filter.name()) {
          case "status" -> filter.matches(Xml.text(item, "status").orElse(""));
          case "attachment.status" -> Xml.items(item, "attachmentSet").stream()
              .anyMatch(a -> filter.matches(Xml.text(a, "status").orElse("")));
          default -> true;
        },
        item -> true);
  }

  /**
   * The account {@code Owner=self} names: the caller's, as the emulator maps its access key (asked once per key),
   * else the profile's.
   */
  private String callerAccount(ProxyRequest request) {
    String key = request.accessKeyId().orElse("");
    String known = accounts.get(key);
    if (known != null) {
      return known;
    }
    String account = moto.callerAccount(request).orElse(profile.accountId());
    accounts.putIfAbsent(key, account);
    return account;
  }

  private ProxyResponse describeSnapshots(ProxyRequest request, QueryParams params) {
    List<String> owners = params.list("Owner");
    QueryParams forwarded = params.without(key -> key.startsWith("Owner."));
    String self = owners.isEmpty() ? "" : callerAccount(request);
    Predicate<Element> owned = owners.isEmpty() ? item -> true : item -> {
      String owner = Xml.text(item, "ownerId").orElse("");
      return owners.stream().anyMatch(o -> o.equals(owner) || o.equals("self") && owner.equals(self)
          || (o.equals("amazon") || o.equals("aws-marketplace")) && !owner.equals(self));
    };
    return describe(request, forwarded, "DescribeSnapshots", "snapshotSet", Set.of("status", "progress"),
        views::rewriteSnapshot, item -> Xml.text(item, "snapshotId").orElse(""), item -> 1,
        (filter, item) -> filter.matches(Xml.text(item, filter.name()).orElse("")), owned);
  }

  private ProxyResponse describeInstances(ProxyRequest request, QueryParams params) {
    return describe(request, params, "DescribeInstances", "reservationSet", Set.of(),
        (reservation, now) -> Xml.items(reservation, "instancesSet").forEach(i -> views.rewriteInstance(i, now)),
        item -> Xml.text(item, "reservationId").orElse(""),
        item -> Xml.items(item, "instancesSet").size(),
        (filter, item) -> true, item -> true);
  }

  /**
   * The common shape of a paged Describe: validate paging, ask moto for everything (minus the filters on rewritten
   * states), rewrite each item, filter, cut one page.
   */
  private ProxyResponse describe(ProxyRequest request, QueryParams params, String action, String listName,
                                 Set<String> localFilterNames, BiConsumer<Element, Instant> rewrite,
                                 Function<Element, String> key, ToIntFunction<Element> weight,
                                 BiPredicate<Ec2Filter, Element> localFilter, Predicate<Element> keep) {
    Optional<Integer> maxResults = maxResults(action, params);
    List<Ec2Filter> filters = Ec2Filter.parse(params);
    List<Ec2Filter> local = filters.stream().filter(f -> localFilterNames.contains(f.name())).toList();
    List<Ec2Filter> remote = filters.stream().filter(f -> !localFilterNames.contains(f.name())).toList();
    QueryParams forwarded = Ec2Filter.replace(params.withoutKeys("MaxResults", "NextToken"), remote);
    ProxyResponse response = moto.send(request, forwarded);
    if (response.isError()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    Element root = doc.getDocumentElement();
    Element list = Xml.list(root, listName);
    Instant now = clock.instant();
    var items = new ArrayList<Element>();
    for (Element item : Xml.children(list, "item")) {
      rewrite.accept(item, now);
      if (keep.test(item) && local.stream().allMatch(f -> localFilter.test(f, item))) {
        items.add(item);
      } else {
        list.removeChild(item);
      }
    }
    pageInPlace(root, list, items, params, maxResults, key, weight);
    return response.withBody(Xml.write(doc));
  }

  /**
   * DescribeVolumesModifications: the latest modification of each volume, in its current state; a volume asked for by
   * id that was never modified is InvalidVolumeModification.NotFound, as on EC2 (moto answers an empty list).
   */
  private ProxyResponse describeVolumesModifications(ProxyRequest request, QueryParams params) {
    Optional<Integer> maxResults = maxResults("DescribeVolumesModifications", params);
    List<Ec2Filter> filters = Ec2Filter.parse(params);
    List<Ec2Filter> local = filters.stream().filter(f -> f.name().equals("modification-state")).toList();
    List<Ec2Filter> remote = filters.stream().filter(f -> !f.name().equals("modification-state")).toList();
    QueryParams forwarded = Ec2Filter.replace(params.withoutKeys("MaxResults", "NextToken"), remote);
    ProxyResponse response = moto.send(request, forwarded);
    if (response.isError()) {
      return response;
    }
    Document doc = Xml.parse(response.body());
    Element root = doc.getDocumentElement();
    Element list = Xml.list(root, "volumeModificationSet");
    Instant now = clock.instant();
    var latestByVolume = new LinkedHashMap<String, Element>();
    for (Element item : Xml.children(list, "item")) {
      list.removeChild(item);
      String volumeId = Xml.text(item, "volumeId").orElse("");
      Element shown = state.latestModification(volumeId)
          .map(m -> Ec2Views.modificationElement(doc, "item", m, now))
          .orElse(item);
      latestByVolume.put(volumeId, shown);
    }
    for (String volumeId : params.list("VolumeId")) {
      if (!latestByVolume.containsKey(volumeId)) {
        throw AwsErrorException.badRequest("InvalidVolumeModification.NotFound",
            "Modification for volume '" + volumeId + "' does not exist.");
      }
    }
    var items = new ArrayList<Element>();
    for (Element item : latestByVolume.values()) {
      if (local.stream().allMatch(f -> f.matches(Xml.text(item, "modificationState").orElse("")))) {
        list.appendChild(item);
        items.add(item);
      }
    }
    pageInPlace(root, list, items, params, maxResults, item -> Xml.text(item, "volumeId").orElse(""), item -> 1);
    return response.withBody(Xml.write(doc));
  }

  private static Optional<Integer> maxResults(String action, QueryParams params) {
    PagingRule rule = PAGING.get(action);
    Optional<String> raw = params.get("MaxResults");
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    if (rule.idList() != null && !params.list(rule.idList()).isEmpty()) {
      throw Ec2Errors.parameterCombination(rule.idListWireName());
    }
    int value;
    try {
      value = Integer.parseInt(raw.get());
    } catch (NumberFormatException e) {
      throw Ec2Errors.invalidParameterValue("Value (" + raw.get() + ") for parameter maxResults is invalid.");
    }
    if (value < rule.min() || value > rule.max()) {
      throw Ec2Errors.invalidParameterValue("Value (" + value + ") for parameter maxResults is invalid. Expecting a "
          + "value between " + rule.min() + " and " + rule.max() + ".");
    }
    return Optional.of(value);
  }

  /** Keeps one page of {@code items} in {@code list} and writes {@code nextToken} when more remain. */
  private static void pageInPlace(Element root, Element list, List<Element> items, QueryParams params,
                                  Optional<Integer> maxResults, Function<Element, String> key,
                                  ToIntFunction<Element> weight) {
    Optional<String> token = params.get("NextToken").filter(t -> !t.isEmpty());
    if (maxResults.isEmpty() && token.isEmpty()) {
      return;
    }
    String fingerprint = params.fingerprint("MaxResults", "NextToken");
    PageTokens.Page<Element> page;
    try {
      page = PageTokens.page(items, key, weight, maxResults.orElse(1000), token, fingerprint);
    } catch (IllegalArgumentException e) {
      throw Ec2Errors.invalidPaginationToken(token.orElse(""));
    }
    for (Element item : items) {
      list.removeChild(item);
    }
    page.items().forEach(list::appendChild);
    Xml.removeChild(root, "nextToken");
    page.nextToken().ifPresent(next -> Xml.appendElement(root, "nextToken", next));
  }

  private static Document newResponse(String rootName) {
    return Xml.parse(("<" + rootName + " xmlns=\"" + NAMESPACE + "\"><requestId>" + UUID.randomUUID()
        + "</requestId></" + rootName + ">").getBytes(StandardCharsets.UTF_8));
  }
}
