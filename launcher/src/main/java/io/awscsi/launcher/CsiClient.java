package io.awscsi.launcher;

import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code aws-csi-driver client RPC [JSON]}: calls one CSI RPC over the socket with a JSON request (proto3 JSON names,
 * e.g. {@code {"name":"pvc-1","volumeCapabilities":[...]}}) and prints the JSON response, for trying the driver by
 * hand without grpcurl.
 */
public final class CsiClient {

  private CsiClient() {}

  public static int run(String endpoint, String rpc, String json, PrintStream out, PrintStream err) {
    MethodDescriptor<Message, Message> method = find(rpc);
    if (method == null) {
      err.println("unknown RPC " + rpc + "; one of: " + String.join(", ", names()));
      return 2;
    }
    ManagedChannel channel = Grpc.newChannelBuilder(endpoint.replaceFirst("^unix:/+", "unix:///"),
        InsecureChannelCredentials.create()).build();
    try {
      Message.Builder request = requestBuilder(method);
      JsonFormat.parser().merge(json == null || json.isBlank() ? "{}" : json, request);
      Message response = ClientCalls.blockingUnaryCall(channel, method,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES), request.build());
      out.println(JsonFormat.printer().print(response));
      return 0;
    } catch (StatusRuntimeException e) {
      err.println(rpc + " failed: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
      return 1;
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      err.println("request JSON does not match " + rpc + "Request: " + e.getMessage());
      return 2;
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static Message.Builder requestBuilder(MethodDescriptor<Message, Message> method) {
    var marshaller = (MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller();
    return marshaller.getMessagePrototype().newBuilderForType();
  }

  @SuppressWarnings("unchecked")
  private static MethodDescriptor<Message, Message> find(String rpc) {
    return (MethodDescriptor<Message, Message>) methods()
        .filter(m -> m.getBareMethodName().equalsIgnoreCase(rpc)).findFirst().orElse(null);
  }

  private static List<String> names() {
    return methods().map(MethodDescriptor::getBareMethodName).sorted().toList();
  }

  private static Stream<MethodDescriptor<?, ?>> methods() {
    return Stream.of(IdentityGrpc.getServiceDescriptor(), ControllerGrpc.getServiceDescriptor(),
        NodeGrpc.getServiceDescriptor()).flatMap(s -> s.getMethods().stream());
  }
}
