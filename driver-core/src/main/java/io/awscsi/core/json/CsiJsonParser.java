package io.awscsi.core.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

/**
 * Reads proto3 JSON (json names or proto field names; 64-bit integers as numbers or strings; enums by name or
 * number; wrappers as bare values; timestamps in RFC 3339) into a CSI message of a given type, by encoding the wire
 * bytes against {@link CsiSchema} and parsing them with the generated lite parser.
 */
public final class CsiJsonParser {

  private static final Set<String> WRAPPERS = Set.of(".google.protobuf.DoubleValue", ".google.protobuf.FloatValue",
      ".google.protobuf.Int64Value", ".google.protobuf.UInt64Value", ".google.protobuf.Int32Value",
      ".google.protobuf.UInt32Value", ".google.protobuf.BoolValue", ".google.protobuf.StringValue",
      ".google.protobuf.BytesValue");

  private final CsiSchema schema;
  private final ObjectMapper mapper = new ObjectMapper();

  public CsiJsonParser() {
    this.schema = CsiSchema.get();
  }

  /** JSON that does not fit the message type: names the path and what was expected there. */
  public static final class JsonMismatchException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    JsonMismatchException(String message) {
      super(message);
    }
  }

  /** Parses {@code json} into a message of the prototype's type. */
  @SuppressWarnings("unchecked")
  public <T extends MessageLite> T parse(String json, T prototype) {
    JsonNode tree;
    try {
      tree = mapper.readTree(json == null || json.isBlank() ? "{}" : json);
    } catch (JsonProcessingException e) {
      throw new JsonMismatchException("not JSON: " + e.getOriginalMessage());
    }
    String type = CsiSchema.typeName(prototype);
    ByteString bytes = encodeMessage(tree, schema.message(type), "$");
    try {
      return (T) prototype.getParserForType().parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new JsonMismatchException("does not make a valid " + type + ": " + e.getMessage());
    }
  }

  static boolean isWrapper(String typeName) {
    return WRAPPERS.contains(typeName);
  }

  private ByteString encodeMessage(JsonNode node, DescriptorProto type, String path) {
    if (!node.isObject()) {
      throw mismatch(path, "an object for " + type.getName(), node);
    }
    ByteString.Output bytes = ByteString.newOutput();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      for (Map.Entry<String, JsonNode> member : node.properties()) {
        FieldDescriptorProto field = field(type, member.getKey());
        if (field == null) {
          throw new JsonMismatchException(path + ": " + type.getName() + " has no field \"" + member.getKey() + "\"");
        }
        JsonNode value = member.getValue();
        String at = path + "." + member.getKey();
        if (value.isNull()) {
          continue;
        }
        if (schema.isMap(field)) {
          encodeMap(out, field, value, at);
        } else if (field.getLabel() == FieldDescriptorProto.Label.LABEL_REPEATED) {
          if (!value.isArray()) {
            throw mismatch(at, "an array", value);
          }
          for (int i = 0; i < value.size(); i++) {
            encodeValue(out, field, value.get(i), at + "[" + i + "]");
          }
        } else {
          encodeValue(out, field, value, at);
        }
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteString();
  }

  private void encodeMap(CodedOutputStream out, FieldDescriptorProto field, JsonNode value, String path)
      throws IOException {
    if (!value.isObject()) {
      throw mismatch(path, "an object (a map)", value);
    }
    DescriptorProto entryType = schema.message(field.getTypeName());
    for (Map.Entry<String, JsonNode> member : value.properties()) {
      ByteString.Output bytes = ByteString.newOutput();
      CodedOutputStream entry = CodedOutputStream.newInstance(bytes);
      String at = path + "." + member.getKey();
      encodeValue(entry, entryType.getField(0), mapper.getNodeFactory().textNode(member.getKey()), at);
      encodeValue(entry, entryType.getField(1), member.getValue(), at);
      entry.flush();
      out.writeBytes(field.getNumber(), bytes.toByteString());
    }
  }

  private void encodeValue(CodedOutputStream out, FieldDescriptorProto field, JsonNode v, String path)
      throws IOException {
    int n = field.getNumber();
    switch (field.getType()) {
      case TYPE_STRING -> out.writeString(n, text(v, path));
      case TYPE_BOOL -> {
        if (!v.isBoolean()) {
          throw mismatch(path, "true or false", v);
        }
        out.writeBool(n, v.booleanValue());
      }
      case TYPE_INT32 -> out.writeInt32(n, (int) integer(v, path, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case TYPE_SINT32 -> out.writeSInt32(n, (int) integer(v, path, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case TYPE_SFIXED32 -> out.writeSFixed32(n, (int) integer(v, path, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case TYPE_UINT32 -> out.writeUInt32(n, (int) integer(v, path, 0, 0xFFFF_FFFFL));
      case TYPE_FIXED32 -> out.writeFixed32(n, (int) integer(v, path, 0, 0xFFFF_FFFFL));
      case TYPE_INT64 -> out.writeInt64(n, integer(v, path, Long.MIN_VALUE, Long.MAX_VALUE));
      case TYPE_SINT64 -> out.writeSInt64(n, integer(v, path, Long.MIN_VALUE, Long.MAX_VALUE));
      case TYPE_SFIXED64 -> out.writeSFixed64(n, integer(v, path, Long.MIN_VALUE, Long.MAX_VALUE));
      case TYPE_UINT64 -> out.writeUInt64(n, integer(v, path, 0, Long.MAX_VALUE));
      case TYPE_FIXED64 -> out.writeFixed64(n, integer(v, path, 0, Long.MAX_VALUE));
      case TYPE_DOUBLE -> out.writeDouble(n, number(v, path));
      case TYPE_FLOAT -> out.writeFloat(n, (float) number(v, path));
      case TYPE_BYTES -> {
        try {
          out.writeBytes(n, ByteString.copyFrom(Base64.getDecoder().decode(text(v, path))));
        } catch (IllegalArgumentException e) {
          throw mismatch(path, "base64", v);
        }
      }
      case TYPE_ENUM -> out.writeEnum(n, enumNumber(field, v, path));
      case TYPE_MESSAGE -> out.writeBytes(n, encodeNested(field.getTypeName(), v, path));
      case TYPE_GROUP -> throw mismatch(path, "no group (not proto3)", v);
    }
  }

  private ByteString encodeNested(String typeName, JsonNode v, String path) throws IOException {
    DescriptorProto type = schema.message(typeName);
    if (typeName.equals(".google.protobuf.Timestamp")) {
      Instant at;
      try {
        at = Instant.parse(text(v, path));
      } catch (DateTimeParseException e) {
        throw mismatch(path, "an RFC 3339 time such as 2026-01-02T03:04:05Z", v);
      }
      ByteString.Output bytes = ByteString.newOutput();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      out.writeInt64(1, at.getEpochSecond());
      out.writeInt32(2, at.getNano());
      out.flush();
      return bytes.toByteString();
    }
    if (isWrapper(typeName)) {
      ByteString.Output bytes = ByteString.newOutput();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      encodeValue(out, type.getField(0), v, path);
      out.flush();
      return bytes.toByteString();
    }
    return encodeMessage(v, type, path);
  }

  private int enumNumber(FieldDescriptorProto field, JsonNode v, String path) {
    var type = schema.enumType(field.getTypeName());
    if (v.isIntegralNumber()) {
      return v.intValue();
    }
    String name = text(v, path);
    return type.getValueList().stream().filter(e -> e.getName().equals(name))
        .mapToInt(EnumValueDescriptorProto::getNumber).findFirst()
        .orElseThrow(() -> mismatch(path, "one of " + type.getValueList().stream()
            .map(EnumValueDescriptorProto::getName).toList(), v));
  }

  private static FieldDescriptorProto field(DescriptorProto type, String name) {
    for (FieldDescriptorProto f : type.getFieldList()) {
      if (f.getJsonName().equals(name) || f.getName().equals(name)) {
        return f;
      }
    }
    return null;
  }

  private static String text(JsonNode v, String path) {
    if (!v.isTextual()) {
      throw mismatch(path, "a string", v);
    }
    return v.textValue();
  }

  private static long integer(JsonNode v, String path, long min, long max) {
    long value;
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      value = v.longValue();
    } else if (v.isTextual()) {
      try {
        value = Long.parseLong(v.textValue().trim());
      } catch (NumberFormatException e) {
        throw mismatch(path, "an integer", v);
      }
    } else {
      throw mismatch(path, "an integer", v);
    }
    if (value < min || value > max) {
      throw mismatch(path, "an integer in [" + min + ", " + max + "]", v);
    }
    return value;
  }

  private static double number(JsonNode v, String path) {
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      try {
        return Double.parseDouble(v.textValue());
      } catch (NumberFormatException e) {
        throw mismatch(path, "a number", v);
      }
    }
    throw mismatch(path, "a number", v);
  }

  private static JsonMismatchException mismatch(String path, String expected, JsonNode got) {
    return new JsonMismatchException(path + ": expected " + expected + ", got " + got);
  }
}
