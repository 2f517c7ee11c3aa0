package io.awscsi.e2e.iam;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.ebs.cloud.Ec2Action;
import io.awscsi.efs.cloud.EfsCloud;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The IAM policies in {@code helm/iam} grant exactly the AWS actions the driver calls. The actions are read from the
 * compiled ebs and efs modules (every call on the SDK's {@code Ec2Client} and {@code EfsClient}, and the role the EFS
 * controller assumes for cross-account file systems), not from a list kept by hand: a new SDK call without its
 * permission fails here, and so does a permission for a call the code no longer makes.
 */
class IamPolicyActionsTest {

  private static final Path IAM = Path.of("../helm/iam");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** SDK client interfaces whose instance methods are API operations, and the IAM service prefix of each. */
  private static final Map<String, String> CLIENTS = Map.of(
      "software/amazon/awssdk/services/ec2/Ec2Client", "ec2",
      "software/amazon/awssdk/services/efs/EfsClient", "elasticfilesystem",
      "software/amazon/awssdk/services/sts/StsClient", "sts");
  /** The SDK's role-assuming credentials provider calls sts:AssumeRole for the driver. */
  private static final String ASSUME_ROLE_PROVIDER = "software/amazon/awssdk/services/sts/auth/StsAssumeRoleCredentialsProvider";
  /**
   * What only VolumeGroupSnapshot calls: not in the three EBS policies (which grant what upstream's grants) but in the
   * addition helm/iam/ebs-policy-group-snapshots.json, attached by those who turn group snapshots on.
   */
  private static final Set<String> GROUP_SNAPSHOT_ACTIONS = Set.of("ec2:CreateSnapshots");
  /** Client methods that are not API operations. */
  private static final Set<String> NOT_OPERATIONS = Set.of("close", "serviceName", "serviceClientConfiguration",
      "waiter", "utilities", "builder", "create");
  /**
   * Tags set in the create request (the driver always tags what it creates) are authorized as a second action:
   * EC2's CreateTags with ec2:CreateAction, EFS's TagResource.
   */
  private static final Map<String, String> TAG_ON_CREATE = Map.of(
      "ec2:CreateVolume", "ec2:CreateTags",
      "ec2:CreateSnapshot", "ec2:CreateTags",
      "ec2:CreateSnapshots", "ec2:CreateTags",
      "ec2:CopyVolumes", "ec2:CreateTags",
      "elasticfilesystem:CreateAccessPoint", "elasticfilesystem:TagResource");

  @Test
  void ebsPoliciesGrantExactlyTheEc2ActionsTheEbsModuleCalls() {
    Map<String, Set<String>> calls = actionsCalledBy(Ec2Action.class);
    assertThat(calls.keySet()).as("EC2 calls found in the ebs module").contains("ec2:AttachVolume", "ec2:CreateVolume");
    assertThat(calls.keySet()).as("the group snapshots' EC2 call").containsAll(GROUP_SNAPSHOT_ACTIONS);
    Set<String> base = new TreeSet<>(calls.keySet());
    base.removeAll(GROUP_SNAPSHOT_ACTIONS);
    Set<String> expected = withTagOnCreate(base);
    for (String policy : List.of("ebs-policy.json", "ebs-policy-hardened.json", "ebs-policy-cluster-scoped.json")) {
      assertThat(actionsOf(policy)).as("%s against the calls %s", policy, calls).isEqualTo(expected);
      assertThat(createActionsOf(policy)).as("%s: CreateTags only while creating what the driver creates", policy)
          .isEqualTo(createCalls(base, "ec2:"));
    }
    // Group snapshots are off by default (upstream has none): their addition grants exactly what they call.
    assertThat(actionsOf("ebs-policy-group-snapshots.json")).isEqualTo(new TreeSet<>(Set.of("ec2:CreateSnapshots",
        "ec2:CreateTags", "ec2:DeleteSnapshot")));
    assertThat(createActionsOf("ebs-policy-group-snapshots.json")).containsExactly("CreateSnapshots");
  }

  @Test
  void efsPoliciesGrantExactlyTheActionsTheEfsModuleCalls() {
    Map<String, Set<String>> calls = actionsCalledBy(EfsCloud.class);
    assertThat(calls.keySet()).as("EFS calls found in the efs module")
        .contains("elasticfilesystem:CreateAccessPoint", "sts:AssumeRole");
    Set<String> efs = new TreeSet<>();
    Set<String> sts = new TreeSet<>();
    for (String action : withTagOnCreate(calls.keySet())) {
      (action.startsWith("sts:") ? sts : efs).add(action);
    }
    assertThat(actionsOf("efs-policy.json")).as("efs-policy.json against the calls %s", calls).isEqualTo(efs);
    assertThat(actionsOf("efs-cross-account-policy.json")).as("the cross-account policy (STS)").isEqualTo(sts);
    assertThat(efs).as("the EFS controller calls no EC2 API").noneMatch(a -> a.startsWith("ec2:"));
  }

  /** Action -> the classes that call it, for every class in the module (jar or directory) of {@code anchor}. */
  static Map<String, Set<String>> actionsCalledBy(Class<?> anchor) {
    Map<String, Set<String>> actions = new TreeMap<>();
    for (byte[] bytes : classFiles(anchor)) {
      ClassModel model = ClassFile.of().parse(bytes);
      String where = model.thisClass().asInternalName();
      for (MethodModel method : model.methods()) {
        method.code().ifPresent(code -> {
          for (CodeElement element : code) {
            if (element instanceof InvokeInstruction invoke) {
              String action = action(invoke.owner().asInternalName(), invoke.name().stringValue());
              if (action != null) {
                actions.computeIfAbsent(action, a -> new TreeSet<>()).add(where);
              }
            }
          }
        });
      }
    }
    return actions;
  }

  private static String action(String owner, String method) {
    if (owner.equals(ASSUME_ROLE_PROVIDER)) {
      return "sts:AssumeRole";
    }
    String service = CLIENTS.get(owner);
    if (service == null || NOT_OPERATIONS.contains(method)) {
      return null;
    }
    String operation = method.endsWith("Paginator") ? method.substring(0, method.length() - "Paginator".length())
        : method;
    return service + ":" + Character.toUpperCase(operation.charAt(0)) + operation.substring(1);
  }

  private static Set<String> withTagOnCreate(Set<String> calls) {
    Set<String> all = new TreeSet<>(calls);
    calls.stream().map(TAG_ON_CREATE::get).filter(a -> a != null).forEach(all::add);
    return all;
  }

  private static Set<String> createCalls(Set<String> calls, String prefix) {
    Set<String> creates = new TreeSet<>();
    for (String call : calls) {
      if (call.startsWith(prefix) && TAG_ON_CREATE.containsKey(call)) {
        creates.add(call.substring(prefix.length()));
      }
    }
    return creates;
  }

  private static List<byte[]> classFiles(Class<?> anchor) {
    try {
      Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      List<byte[]> classes = new ArrayList<>();
      if (Files.isDirectory(location)) {
        try (Stream<Path> files = Files.walk(location)) {
          for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
            classes.add(Files.readAllBytes(file));
          }
        }
      } else {
        try (ZipFile jar = new ZipFile(location.toFile())) {
          for (var entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
            classes.add(jar.getInputStream(entry).readAllBytes());
          }
        }
      }
      assertThat(classes).as("classes of %s at %s", anchor.getName(), location).isNotEmpty();
      return classes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode policy(String file) {
    return JSON.readTree(IAM.resolve(file).toFile());
  }

  private static Set<String> actionsOf(String file) {
    Set<String> actions = new TreeSet<>();
    for (JsonNode statement : policy(file).path("Statement")) {
      assertThat(statement.path("Effect").asString()).as("%s: Allow statements only", file).isEqualTo("Allow");
      JsonNode action = statement.path("Action");
      if (action.isArray()) {
        action.forEach(a -> actions.add(a.asString()));
      } else {
        actions.add(action.asString());
      }
    }
    return actions;
  }

  /** The ec2:CreateAction values under which a policy allows CreateTags. */
  private static Set<String> createActionsOf(String file) {
    Set<String> creates = new TreeSet<>();
    for (JsonNode statement : policy(file).path("Statement")) {
      JsonNode values = statement.path("Condition").path("StringEquals").path("ec2:CreateAction");
      if (values.isArray()) {
        values.forEach(v -> creates.add(v.asString()));
      } else if (!values.isMissingNode()) {
        creates.add(values.asString());
      }
    }
    return creates;
  }
}
