package io.awscsi.core.json;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.MessageLite;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints a CSI message as proto3 JSON (the mapping protobuf's JsonFormat uses: json names, 64-bit integers as strings,
 * enums by name, wrappers as bare values, timestamps in RFC 3339), reading the message's wire bytes against
 * {@link CsiSchema}. A {@link Redaction} replaces the values it names by {@value #MASK}.
 */
public final class CsiJsonPrinter {

  public static final String MASK = "***redacted***";

  /** Which values to hide: a field, and for a map field the entry's key (null otherwise). */
  @FunctionalInterface
  public interface Redaction {
    boolean hides(FieldDescriptorProto field, String mapKey);

    Redaction NONE = (field, key) -> false;
  }

  private final CsiSchema schema;
  private final boolean pretty;
  private final Redaction redaction;

  private CsiJsonPrinter(CsiSchema schema, boolean pretty, Redaction redaction) {
    this.schema = schema;
    this.pretty = pretty;
    this.redaction = redaction;
  }

  /** Indented, every value shown: for people at a terminal. */
  public static CsiJsonPrinter pretty() {
    return new CsiJsonPrinter(CsiSchema.get(), true, Redaction.NONE);
  }

  /** One line, with the given values hidden: for logs. */
  public static CsiJsonPrinter singleLine(Redaction redaction) {
    return new CsiJsonPrinter(CsiSchema.get(), false, redaction);
  }

  public String print(MessageLite message) {
    StringBuilder out = new StringBuilder();
    printMessage(out, schema.message(CsiSchema.typeName(message)), message.toByteString(), 0);
    return out.toString();
  }

  private void printMessage(StringBuilder out, DescriptorProto type, ByteString bytes, int depth) {
    Map<FieldDescriptorProto, List<Object>> values = decode(type, bytes);
    if (values.isEmpty()) {
      out.append("{}");
      return;
    }
    out.append('{');
    boolean first = true;
    for (FieldDescriptorProto field : type.getFieldList()) {
      List<Object> list = values.get(field);
      if (list == null) {
        continue;
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      newline(out, depth + 1);
      string(out, field.getJsonName().isEmpty() ? field.getName() : field.getJsonName());
      out.append(": ");
      if (schema.isMap(field)) {
        printMap(out, field, list, depth + 1);
      } else if (field.getLabel() == FieldDescriptorProto.Label.LABEL_REPEATED) {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            out.append(", ");
          }
          printValue(out, field, list.get(i), depth + 1, null);
        }
        out.append(']');
      } else {
        printValue(out, field, list.getLast(), depth + 1, null);
      }
    }
    newline(out, depth);
    out.append('}');
  }

  private void printMap(StringBuilder out, FieldDescriptorProto field, List<Object> entries, int depth) {
    DescriptorProto entryType = schema.message(field.getTypeName());
    FieldDescriptorProto keyField = entryType.getField(0);
    FieldDescriptorProto valueField = entryType.getField(1);
    Map<String, Object> map = new LinkedHashMap<>();
    for (Object entry : entries) {
      Map<FieldDescriptorProto, List<Object>> kv = decode(entryType, (ByteString) entry);
      Object key = kv.containsKey(keyField) ? kv.get(keyField).getLast() : defaultValue(keyField);
      Object value = kv.containsKey(valueField) ? kv.get(valueField).getLast() : defaultValue(valueField);
      map.put(String.valueOf(key), value);
    }
    out.append('{');
    boolean first = true;
    for (var e : map.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      newline(out, depth + 1);
      string(out, e.getKey());
      out.append(": ");
      if (redaction.hides(field, e.getKey())) {
        string(out, MASK);
      } else {
        printValue(out, valueField, e.getValue(), depth + 1, e.getKey());
      }
    }
    newline(out, depth);
    out.append('}');
  }

  private void printValue(StringBuilder out, FieldDescriptorProto field, Object value, int depth, String mapKey) {
    if (mapKey == null && redaction.hides(field, null)) {
      string(out, MASK);
      return;
    }
    switch (field.getType()) {
      case TYPE_STRING -> string(out, (String) value);
      case TYPE_BOOL, TYPE_INT32, TYPE_SINT32, TYPE_SFIXED32 -> out.append(value);
      case TYPE_UINT32, TYPE_FIXED32 -> out.append(Integer.toUnsignedString((Integer) value));
      case TYPE_INT64, TYPE_SINT64, TYPE_SFIXED64 -> string(out, value.toString());
      case TYPE_UINT64, TYPE_FIXED64 -> string(out, Long.toUnsignedString((Long) value));
      case TYPE_DOUBLE, TYPE_FLOAT -> {
        double d = ((Number) value).doubleValue();
        if (Double.isFinite(d)) {
          out.append(value);
        } else {
          string(out, Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        }
      }
      case TYPE_BYTES -> string(out, Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
      case TYPE_ENUM -> {
        int number = (Integer) value;
        String name = schema.enumType(field.getTypeName()).getValueList().stream()
            .filter(v -> v.getNumber() == number).map(EnumValueDescriptorProto::getName).findFirst().orElse(null);
        if (name == null) {
          out.append(number);
        } else {
          string(out, name);
        }
      }
      case TYPE_MESSAGE -> printNested(out, field.getTypeName(), (ByteString) value, depth);
      default -> out.append("null");
    }
  }

  private void printNested(StringBuilder out, String typeName, ByteString bytes, int depth) {
    DescriptorProto type = schema.message(typeName);
    if (typeName.equals(".google.protobuf.Timestamp")) {
      Map<FieldDescriptorProto, List<Object>> v = decode(type, bytes);
      long seconds = v.containsKey(type.getField(0)) ? (Long) v.get(type.getField(0)).getLast() : 0;
      int nanos = v.containsKey(type.getField(1)) ? (Integer) v.get(type.getField(1)).getLast() : 0;
      string(out, Instant.ofEpochSecond(seconds, nanos).toString());
    } else if (CsiJsonParser.isWrapper(typeName)) {
      FieldDescriptorProto inner = type.getField(0);
      List<Object> v = decode(type, bytes).get(inner);
      printValue(out, inner, v == null ? defaultValue(inner) : v.getLast(), depth, null);
    } else {
      printMessage(out, type, bytes, depth);
    }
  }

  /** The fields present on the wire, in wire order per field; packed and unpacked repeated scalars both read. */
  private Map<FieldDescriptorProto, List<Object>> decode(DescriptorProto type, ByteString bytes) {
    Map<FieldDescriptorProto, List<Object>> values = new LinkedHashMap<>();
    CodedInputStream in = bytes.newCodedInput();
    try {
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        FieldDescriptorProto field = field(type, WireFormat.getTagFieldNumber(tag));
        if (field == null) {
          in.skipField(tag);
          continue;
        }
        List<Object> list = values.computeIfAbsent(field, f -> new ArrayList<>());
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED && isScalarNumber(field.getType())) {
          int limit = in.pushLimit(in.readRawVarint32());
          while (!in.isAtEnd()) {
            list.add(read(in, field.getType()));
          }
          in.popLimit(limit);
        } else {
          list.add(read(in, field.getType()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("malformed " + type.getName() + " on the wire", e);
    }
    return values;
  }

  private static FieldDescriptorProto field(DescriptorProto type, int number) {
    for (FieldDescriptorProto f : type.getFieldList()) {
      if (f.getNumber() == number) {
        return f;
      }
    }
    return null;
  }

  private static Object read(CodedInputStream in, Type type) throws IOException {
    return switch (type) {
      case TYPE_DOUBLE -> in.readDouble();
      case TYPE_FLOAT -> in.readFloat();
      case TYPE_INT64 -> in.readInt64();
      case TYPE_UINT64 -> in.readUInt64();
      case TYPE_INT32 -> in.readInt32();
      case TYPE_FIXED64 -> in.readFixed64();
      case TYPE_FIXED32 -> in.readFixed32();
      case TYPE_BOOL -> in.readBool();
      case TYPE_STRING -> in.readString();
      case TYPE_BYTES, TYPE_MESSAGE -> in.readBytes();
      case TYPE_UINT32 -> in.readUInt32();
      case TYPE_ENUM -> in.readEnum();
      case TYPE_SFIXED32 -> in.readSFixed32();
      case TYPE_SFIXED64 -> in.readSFixed64();
      case TYPE_SINT32 -> in.readSInt32();
      case TYPE_SINT64 -> in.readSInt64();
      case TYPE_GROUP -> throw new IOException("groups are not part of proto3");
    };
  }

  static boolean isScalarNumber(Type type) {
    return type != Type.TYPE_STRING && type != Type.TYPE_BYTES && type != Type.TYPE_MESSAGE && type != Type.TYPE_GROUP;
  }

  private static Object defaultValue(FieldDescriptorProto field) {
    return switch (field.getType()) {
      case TYPE_STRING -> "";
      case TYPE_BOOL -> false;
      case TYPE_BYTES, TYPE_MESSAGE -> ByteString.EMPTY;
      case TYPE_INT64, TYPE_UINT64, TYPE_FIXED64, TYPE_SFIXED64, TYPE_SINT64 -> 0L;
      case TYPE_DOUBLE -> 0d;
      case TYPE_FLOAT -> 0f;
      default -> 0;
    };
  }

  private void newline(StringBuilder out, int depth) {
    if (pretty) {
      out.append('\n').append("  ".repeat(depth));
    } else if (out.charAt(out.length() - 1) == ',') {
      out.append(' ');
    }
  }

  static void string(StringBuilder out, String s) {
    JsonQuoting.quote(out, s);
  }
}
