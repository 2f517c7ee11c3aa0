package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.proxy.QueryParams;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Ec2FilterTest {

  @Test
  void parsesFiltersAndRenumbersWhatIsForwarded() {
    var params = QueryParams.parse("Action=DescribeVolumes&Filter.1.Name=status&Filter.1.Value.1=creating"
        + "&Filter.2.Name=tag:CSIVolumeName&Filter.2.Value.1=pvc-1&Filter.2.Value.2=pvc-2");

    List<Ec2Filter> filters = Ec2Filter.parse(params);
    QueryParams forwarded = Ec2Filter.replace(params, filters.subList(1, 2));

    assertThat(filters).containsExactly(new Ec2Filter("status", List.of("creating")),
        new Ec2Filter("tag:CSIVolumeName", List.of("pvc-1", "pvc-2")));
    assertThat(forwarded.asMap()).containsEntry("Filter.1.Name", "tag:CSIVolumeName")
        .containsEntry("Filter.1.Value.2", "pvc-2").doesNotContainKey("Filter.2.Name")
        .containsEntry("Action", "DescribeVolumes");
  }

  @ParameterizedTest(name = "{0} matches {1}: {2}")
  @CsvSource({"creating, creating, true", "creat*, creating, true", "in-us?, in-use, true",
      "available, in-use, false", "a.b, axb, false"})
  void valuesMatchWithWildcards(String value, String actual, boolean matches) {
    assertThat(new Ec2Filter("status", List.of(value)).matches(actual)).isEqualTo(matches);
  }
}
