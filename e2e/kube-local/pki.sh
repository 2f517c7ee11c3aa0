# Sourced by cluster.sh: the cluster's own certificate authority, the serving and client certificates of every
# component (ECDSA P-256: quick to make on a loaded machine), the service-account signing key and the kubeconfigs.
# Everything names 127.0.0.1; nothing here is valid anywhere else.

# cert NAME CN [O] [SAN]: a key and a certificate signed by the cluster CA (server+client when SAN is given).
cert() {
  local name=$1 cn=$2 org=${3:-} san=${4:-} subject
  subject="/CN=$cn"
  [ -n "$org" ] && subject="/O=$org/CN=$cn"
  openssl ecparam -genkey -name prime256v1 -noout -out "$P/$name.key" 2>/dev/null
  openssl req -new -key "$P/$name.key" -subj "$subject" -out "$P/$name.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$san" ]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=$san"
    else echo "extendedKeyUsage=clientAuth"; fi
  } > "$P/$name.ext"
  openssl x509 -req -in "$P/$name.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 30 \
    -extfile "$P/$name.ext" -out "$P/$name.crt" 2>/dev/null
  rm -f "$P/$name.csr" "$P/$name.ext"
}

# kubeconfig NAME USER-LINES: $KL_STATE/NAME.kubeconfig for the API server on loopback.
kubeconfig() {
  local name=$1 user=$2 namespace=${3:-default}
  cat > "$KL_STATE/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube-local
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$P/ca.crt"}
users:
- name: $name
  user: {$user}
contexts:
- name: kube-local
  context: {cluster: kube-local, user: $name, namespace: $namespace}
current-context: kube-local
EOF
}
cert_kubeconfig() { kubeconfig "$1" "client-certificate: \"$P/$2.crt\", client-key: \"$P/$2.key\""; }

make_pki() {
  mkdir -p "$P"
  openssl ecparam -genkey -name prime256v1 -noout -out "$P/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$P/ca.key" -subj "/CN=kube-local-ca" -days 30 -out "$P/ca.crt" 2>/dev/null
  cert apiserver kube-apiserver "" \
    "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:127.0.0.1,IP:$SERVICE_IP"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert admin kube-local-admin system:masters
  cert controller-manager system:kube-controller-manager
  cert scheduler system:kube-scheduler
  cert kubelet "system:node:$NODE_NAME" system:nodes
  cert kubelet-serving "$NODE_NAME" "" "DNS:$NODE_NAME,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP"
  # Multi-node mode: each further node's kubelet is its own system:node identity (NodeRestriction holds it to its
  # own Node and pods) with a serving certificate for its own address.
  local i n
  for (( i = 2; i <= KL_NODES; i++ )); do
    n=$(node_name "$i")
    cert "kubelet-$i" "system:node:$n" system:nodes
    cert "kubelet-serving-$i" "$n" "" "DNS:$n,IP:$(node_ip "$i")"
  done
  openssl ecparam -genkey -name prime256v1 -noout -out "$P/sa.key" 2>/dev/null
  openssl ec -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  cert_kubeconfig admin admin
  cert_kubeconfig controller-manager controller-manager
  cert_kubeconfig scheduler scheduler
  cert_kubeconfig kubelet kubelet
  for (( i = 2; i <= KL_NODES; i++ )); do cert_kubeconfig "kubelet-$i" "kubelet-$i"; done
}

# token_kubeconfig NAMESPACE SERVICE-ACCOUNT: a kubeconfig with a TokenRequest token of that service account, so a
# host process talks to the API server exactly as the pod running under that account would.
token_kubeconfig() {
  local namespace=$1 account=$2 token
  token=$(kubectl -n "$namespace" create token "$account" --duration=24h) || return 1
  kubeconfig "sa-$namespace-$account" "token: \"$token\"" "$namespace"
  echo "$KL_STATE/sa-$namespace-$account.kubeconfig"
}
