package io.awscsi.core.logging;

import com.google.protobuf.MessageLite;
import io.awscsi.core.json.CsiJsonPrinter;
import io.awscsi.core.json.CsiSchema;
import java.util.regex.Pattern;

/**
 * Renders a CSI message for the debug log as one line of JSON with every value of a field the spec marks
 * {@code (csi_secret)} (the {@code secrets} maps) and every secret-looking map entry (parameters, volume context,
 * publish context) replaced by {@value #MASK}. Driven by the spec's descriptors, so a field added to the spec later is
 * covered without a change here.
 */
public final class RequestRedactor {

  static final String MASK = CsiJsonPrinter.MASK;

  /** Key names that hold credentials in StorageClass parameters, contexts and provisioner secrets. */
  private static final Pattern SECRET_KEY = Pattern.compile(
      "(?i).*(secret|password|passwd|token|credential|private|session|externalid|accesskey|awsrolearn|cert|apikey).*");

  private RequestRedactor() {}

  private static final class Printer {
    static final CsiJsonPrinter INSTANCE = CsiJsonPrinter.singleLine((field, key) ->
        CsiSchema.isSecret(field) || field.getName().contains("secret") || (key != null && isSecretKey(key)));
  }

  public static String render(MessageLite message) {
    return Printer.INSTANCE.print(message);
  }

  /** Whether a key of a parameter or context map is treated as a secret. */
  public static boolean isSecretKey(String key) {
    return SECRET_KEY.matcher(key).matches();
  }
}
