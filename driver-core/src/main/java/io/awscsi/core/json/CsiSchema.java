package io.awscsi.core.json;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.MessageLite;
import csi.v1.Csi;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CSI spec's message types, read from the descriptor set the proto build embeds ({@code csi/v1/csi.desc}, with
 * its imports), and those of the kubelet's plugin registration API ({@code pluginregistration/api.desc}). The
 * generated classes are protobuf-lite and carry no descriptors, so this is what the JSON printer and parser walk.
 * Loaded on first use only: a node at info level never reads it.
 */
public final class CsiSchema {

  private static final List<String> RESOURCES = List.of("/csi/v1/csi.desc", "/pluginregistration/api.desc");

  private final Map<String, DescriptorProto> messages = new HashMap<>();
  private final Map<String, EnumDescriptorProto> enums = new HashMap<>();
  private final List<FileDescriptorProto> files;

  private CsiSchema(List<FileDescriptorProto> files) {
    this.files = files;
    for (FileDescriptorProto file : files) {
      String prefix = file.getPackage().isEmpty() ? "" : file.getPackage() + ".";
      file.getMessageTypeList().forEach(m -> index(prefix, m));
      file.getEnumTypeList().forEach(e -> enums.put(prefix + e.getName(), e));
    }
  }

  private static final class Holder {
    static final CsiSchema INSTANCE = load();
  }

  /** The schema of CSI spec the build compiled. */
  public static CsiSchema get() {
    return Holder.INSTANCE;
  }

  private static CsiSchema load() {
    ExtensionRegistryLite registry = ExtensionRegistryLite.newInstance();
    Csi.registerAllExtensions(registry);
    List<FileDescriptorProto> files = new ArrayList<>();
    for (String resource : RESOURCES) {
      try (InputStream in = CsiSchema.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is missing from the class path (built by the proto module)");
        }
        files.addAll(FileDescriptorSet.parseFrom(in, registry).getFileList());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + resource, e);
      }
    }
    return new CsiSchema(List.copyOf(files));
  }

  private void index(String prefix, DescriptorProto message) {
    String name = prefix + message.getName();
    messages.put(name, message);
    message.getNestedTypeList().forEach(m -> index(name + ".", m));
    message.getEnumTypeList().forEach(e -> enums.put(name + "." + e.getName(), e));
  }

  /** The files of the sets: csi.proto and what it imports, and the registration API's api.proto. */
  public List<FileDescriptorProto> files() {
    return files;
  }

  /** A message type by full name ({@code csi.v1.Volume}; a leading dot, as field type names have, is accepted). */
  public DescriptorProto message(String fullName) {
    DescriptorProto message = messages.get(strip(fullName));
    if (message == null) {
      throw new IllegalArgumentException("no message type " + fullName + " in the CSI schema");
    }
    return message;
  }

  /** An enum type by full name. */
  public EnumDescriptorProto enumType(String fullName) {
    EnumDescriptorProto type = enums.get(strip(fullName));
    if (type == null) {
      throw new IllegalArgumentException("no enum type " + fullName + " in the CSI schema");
    }
    return type;
  }

  /** The full name of a generated message's type: the Java package is the proto package, nesting is {@code $}. */
  public static String typeName(MessageLite message) {
    return message.getClass().getName().replace('$', '.');
  }

  /** Whether the spec marks the field {@code (csi_secret) = true}: its values must never be logged. */
  public static boolean isSecret(FieldDescriptorProto field) {
    return field.hasOptions() && field.getOptions().getExtension(Csi.csiSecret);
  }

  /** Whether a message field is a map, i.e. a repeated field of a synthetic map-entry type. */
  public boolean isMap(FieldDescriptorProto field) {
    return field.getType() == FieldDescriptorProto.Type.TYPE_MESSAGE
        && field.getLabel() == FieldDescriptorProto.Label.LABEL_REPEATED
        && message(field.getTypeName()).getOptions().getMapEntry();
  }

  private static String strip(String name) {
    return name.startsWith(".") ? name.substring(1) : name;
  }
}
