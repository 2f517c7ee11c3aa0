package io.awscsi.core.logging;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import java.util.regex.Pattern;

/**
 * Renders a CSI message for the debug log with every {@code secrets} value and every secret-looking map entry
 * (parameters, volume context, publish context) replaced by {@value #MASK}. Works on any message, so a field added to
 * the spec later is covered without a change here.
 */
public final class RequestRedactor {

  static final String MASK = "***redacted***";

  /** Key names that hold credentials in StorageClass parameters, contexts and provisioner secrets. */
  private static final Pattern SECRET_KEY = Pattern.compile(
      "(?i).*(secret|password|passwd|token|credential|private|session|externalid|accesskey|awsrolearn|cert|apikey).*");

  private RequestRedactor() {}

  public static String render(Message message) {
    return TextFormat.printer().emittingSingleLine(true).printToString(redact(message));
  }

  public static Message redact(Message message) {
    Message.Builder builder = message.toBuilder();
    for (var entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      if (field.isMapField()) {
        builder.clearField(field);
        boolean allSecret = field.getName().contains("secret");
        for (Object item : (java.util.List<?>) entry.getValue()) {
          builder.addRepeatedField(field, redactEntry((Message) item, allSecret));
        }
      } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        if (field.isRepeated()) {
          builder.clearField(field);
          for (Object item : (java.util.List<?>) entry.getValue()) {
            builder.addRepeatedField(field, redact((Message) item));
          }
        } else {
          builder.setField(field, redact((Message) entry.getValue()));
        }
      }
    }
    return builder.build();
  }

  private static Message redactEntry(Message entry, boolean allSecret) {
    if (!(entry instanceof MapEntry<?, ?> mapEntry)) {
      return entry;
    }
    Object key = mapEntry.getKey();
    if (allSecret || (key instanceof String k && SECRET_KEY.matcher(k).matches())) {
      Message.Builder b = entry.toBuilder();
      FieldDescriptor value = entry.getDescriptorForType().findFieldByName("value");
      if (value.getJavaType() == FieldDescriptor.JavaType.STRING) {
        b.setField(value, MASK);
      }
      return b.build();
    }
    return entry;
  }

  /** Whether a key of a parameter or context map is treated as a secret. */
  public static boolean isSecretKey(String key) {
    return SECRET_KEY.matcher(key).matches();
  }
}
