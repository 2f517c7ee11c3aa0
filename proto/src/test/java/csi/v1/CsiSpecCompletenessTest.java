package csi.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.ExtensionRegistryLite;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The generated code must carry the whole CSI v1.13 surface, and the build-time rename must keep the wire format. The
 * messages are protobuf-lite, so the spec's structure is read from the descriptor set the build embeds next to them.
 */
class CsiSpecCompletenessTest {

  private static final FileDescriptorProto FILE = csiFile();

  private static FileDescriptorProto csiFile() {
    try (InputStream in = CsiSpecCompletenessTest.class.getResourceAsStream("/csi/v1/csi.desc")) {
      assertThat(in).as("csi/v1/csi.desc on the class path").isNotNull();
      ExtensionRegistryLite registry = ExtensionRegistryLite.newInstance();
      Csi.registerAllExtensions(registry);
      return FileDescriptorSet.parseFrom(in, registry).getFileList().stream()
          .filter(f -> f.getName().equals("csi.proto")).findFirst().orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every service and RPC of CSI spec v1.13.0, written down independently of the downloaded file. */
  private static final Map<String, List<String>> V1_13 = Map.of(
      "Identity", List.of("GetPluginInfo", "GetPluginCapabilities", "Probe"),
      "Controller", List.of("CreateVolume", "DeleteVolume", "ControllerPublishVolume", "ControllerUnpublishVolume",
          "ValidateVolumeCapabilities", "ListVolumes", "ControllerListVolumeHealth", "ControllerGetVolumeHealth",
          "GetCapacity", "ControllerGetCapabilities", "CreateSnapshot", "DeleteSnapshot", "ListSnapshots",
          "GetSnapshot", "ControllerExpandVolume", "ControllerGetVolume", "ControllerModifyVolume"),
      "GroupController", List.of("GroupControllerGetCapabilities", "CreateVolumeGroupSnapshot",
          "DeleteVolumeGroupSnapshot", "GetVolumeGroupSnapshot"),
      "SnapshotMetadata", List.of("GetMetadataAllocated", "GetMetadataDelta"),
      "Node", List.of("NodeStageVolume", "NodeUnstageVolume", "NodePublishVolume", "NodeUnpublishVolume",
          "NodeGetVolumeStats", "NodeGetVolumeHealth", "NodeGetStorageHealth", "NodeExpandVolume",
          "NodeGetCapabilities", "NodeGetInfo"));

  @Test
  void everyServiceAndRpcOfTheSpecIsGenerated() {
    Map<String, Set<String>> generated = new LinkedHashMap<>();
    for (ServiceDescriptorProto service : FILE.getServiceList()) {
      generated.put(service.getName(), service.getMethodList().stream().map(MethodDescriptorProto::getName)
          .collect(Collectors.toCollection(TreeSet::new)));
    }
    assertThat(generated.keySet()).containsExactlyInAnyOrderElementsOf(V1_13.keySet());
    V1_13.forEach((service, rpcs) -> assertThat(generated.get(service)).as(service).containsExactlyInAnyOrderElementsOf(rpcs));
  }

  @Test
  void grpcStubsExistForTheServicesTheDriverServes() {
    assertThat(IdentityGrpc.getServiceDescriptor().getMethods()).hasSize(3);
    assertThat(ControllerGrpc.getServiceDescriptor().getMethods()).hasSize(17);
    assertThat(NodeGrpc.getServiceDescriptor().getMethods()).hasSize(10);
    assertThat(FILE.getPackage()).isEqualTo("csi.v1");
  }

  @Test
  void theRenameOfMutableParametersKeepsEveryFieldNumberOfTheOriginalFile() throws IOException {
    Path original = Path.of(System.getProperty("csi.original.proto", "target/csi-proto/original/csi.proto"));
    Map<String, Map<Integer, String>> fieldsByMessage = parseFields(Files.readAllLines(original));
    assertThat(fieldsByMessage).isNotEmpty();
    int renamed = 0;
    for (var entry : fieldsByMessage.entrySet()) {
      String[] path = entry.getKey().split("\\.");
      DescriptorProto message = find(FILE.getMessageTypeList(), path[0]);
      for (int i = 1; i < path.length && message != null; i++) {
        message = find(message.getNestedTypeList(), path[i]);
      }
      assertThat(message).as(entry.getKey()).isNotNull();
      for (var field : entry.getValue().entrySet()) {
        FieldDescriptorProto generated = message.getFieldList().stream()
            .filter(f -> f.getNumber() == field.getKey()).findFirst().orElse(null);
        assertThat(generated).as(entry.getKey() + " field " + field.getKey()).isNotNull();
        if (field.getValue().equals("mutable_parameters")) {
          assertThat(generated.getName()).isEqualTo("mutable_params");
          assertThat(generated.getJsonName()).isEqualTo("mutableParameters");
          renamed++;
        } else {
          assertThat(generated.getName()).isEqualTo(field.getValue());
        }
      }
    }
    assertThat(renamed).as("fields renamed").isEqualTo(4);
  }

  private static DescriptorProto find(List<DescriptorProto> types, String name) {
    return types.stream().filter(t -> t.getName().equals(name)).findFirst().orElse(null);
  }

  @Test
  void theSpecMarksEverySecretsFieldCsiSecretForTheLogRedactor() {
    List<FieldDescriptorProto> secrets = FILE.getMessageTypeList().stream().flatMap(m -> m.getFieldList().stream())
        .filter(f -> f.getName().equals("secrets")).toList();
    assertThat(secrets).hasSizeGreaterThanOrEqualTo(10)
        .allSatisfy(f -> assertThat(f.getOptions().getExtension(Csi.csiSecret)).as(f.getJsonName()).isTrue());
  }

  private static final Pattern MESSAGE = Pattern.compile("^\\s*message\\s+(\\w+)\\s*\\{");
  private static final Pattern FIELD =
      Pattern.compile("^\\s*(?:repeated\\s+|optional\\s+)?(?:map<[^>]+>|[\\w.]+)\\s+(\\w+)\\s*=\\s*(\\d+)\\s*[;\\[]");

  /** A small reader of the proto text: message path -> field number -> field name (oneof members included). */
  private static Map<String, Map<Integer, String>> parseFields(List<String> lines) {
    Map<String, Map<Integer, String>> result = new LinkedHashMap<>();
    Deque<String> scopes = new ArrayDeque<>();
    for (String raw : lines) {
      String line = raw.replaceAll("//.*", "");
      Matcher m = MESSAGE.matcher(line);
      if (m.find()) {
        scopes.addLast("message:" + m.group(1));
      } else if (line.contains("{")) {
        scopes.addLast("other");
      } else {
        Matcher f = FIELD.matcher(line);
        String path = scopes.stream().filter(s -> s.startsWith("message:")).map(s -> s.substring(8))
            .collect(Collectors.joining("."));
        // Enum values ("NAME = 1;") have no type word and never match; oneof members belong to their message.
        if (f.find() && !path.isEmpty()) {
          result.computeIfAbsent(path, k -> new LinkedHashMap<>()).put(Integer.parseInt(f.group(2)), f.group(1));
        }
      }
      long closes = line.chars().filter(c -> c == '}').count();
      for (int i = 0; i < closes && !scopes.isEmpty(); i++) {
        scopes.removeLast();
      }
    }
    return result;
  }
}
