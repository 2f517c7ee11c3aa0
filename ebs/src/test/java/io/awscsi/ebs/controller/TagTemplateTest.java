package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TagTemplateTest {

  private static final Map<String, String> FIELDS = Map.of("PVCName", "data-db-0", "PVCNamespace", "Shop",
      "PVName", "pvc-123");

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiterString = "=>", value = {
      "plain => plain",
      "{{ .PVCName }} => data-db-0",
      "ns-{{.PVCNamespace}}-x => ns-Shop-x",
      "{{ .PVCNamespace | toLower }} => shop",
      "{{ toUpper .PVCName }} => DATA-DB-0",
      "{{ .PVCName | substring 0 4 }} => data",
      "{{ substring 5 -1 .PVCName }} => db-0",
      "{{ .PVCName | field \"-\" 1 }} => db",
      "{{ contains \"db\" .PVCName }} => true",
      "{{ .PVName | index \"-\" }} => 3",
      "{{ lastIndex \"-\" .PVCName }} => 7",
      "a {{- \" b \" -}} c => a b c",
      "{{ .PVCName | field \"-\" 0 | toUpper }} => DATA"})
  void evaluates(String template, String expected) {
    assertThat(TagTemplate.evaluate(template.trim(), FIELDS)).isEqualTo(expected.trim());
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> bad() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of("{{ .Missing }}", "can't evaluate field Missing"),
        org.junit.jupiter.params.provider.Arguments.of("{{ html .PVCName }}", "cannot call 'html'"),
        org.junit.jupiter.params.provider.Arguments.of("{{ nope .PVCName }}", "not defined"),
        org.junit.jupiter.params.provider.Arguments.of("{{ .PVCName", "unclosed"),
        org.junit.jupiter.params.provider.Arguments.of("{{ .PVCName | field \"-\" 9 }}", "cannot index"),
        org.junit.jupiter.params.provider.Arguments.of("{{ substring 1 .PVCName }}", "wrong number of args"),
        org.junit.jupiter.params.provider.Arguments.of("{{ }}", "empty action"));
  }

  @ParameterizedTest(name = "{0} fails: {1}")
  @org.junit.jupiter.params.provider.MethodSource("bad")
  void refuses(String template, String message) {
    assertThatThrownBy(() -> TagTemplate.evaluate(template.trim(), FIELDS))
        .isInstanceOf(TagTemplate.TemplateException.class).hasMessageContaining(message.trim());
  }
}
