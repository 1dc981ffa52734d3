package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net"

	cp "antrea.io/antrea/v2/pkg/apis/controlplane/v1beta2"
	crdv1beta1 "antrea.io/antrea/v2/pkg/apis/crd/v1beta1"
	stats "antrea.io/antrea/v2/pkg/apis/stats/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type marshaler interface{ Marshal() ([]byte, error) }

func out(name string, m marshaler) {
	b, err := m.Marshal()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %s\n", name, hex.EncodeToString(b))
}

func i32(v int32) *int32 { return &v }

func cpFixtures() {
	ip4 := cp.IPAddress(net.ParseIP("10.0.0.1").To4())
	ip6 := cp.IPAddress(net.ParseIP("fd00::1"))
	out("groupmember_pod_ip", &cp.GroupMember{Pod: &cp.PodReference{Name: "web", Namespace: "ns"}, IPs: []cp.IPAddress{ip4}})
	out("groupmember_full", &cp.GroupMember{
		Pod:   &cp.PodReference{Name: "web", Namespace: "ns"},
		IPs:   []cp.IPAddress{ip4, ip6},
		Ports: []cp.NamedPort{{Port: 80, Name: "http", Protocol: cp.ProtocolTCP}},
	})
	out("groupmember_node", &cp.GroupMember{Node: &cp.NodeReference{Name: "n1"}, IPs: []cp.IPAddress{ip4}})
	out("groupmember_ee_svc", &cp.GroupMember{ExternalEntity: &cp.ExternalEntityReference{Name: "ee", Namespace: "ns"}, Service: &cp.ServiceReference{Name: "s", Namespace: "ns"}})

	tcp := cp.ProtocolTCP
	udp := cp.ProtocolUDP
	drop := crdv1beta1.RuleAction("Drop")
	prio := 5.5
	port80 := intstr.FromInt32(80)
	portHttp := intstr.FromString("http")
	np := &cp.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{Kind: "NetworkPolicy", APIVersion: "controlplane.antrea.io/v1beta2"},
		ObjectMeta: metav1.ObjectMeta{Name: "uid-1", UID: "uid-1", ResourceVersion: "12", Generation: 2},
		Rules: []cp.NetworkPolicyRule{
			{
				Direction: cp.DirectionIn,
				From: cp.NetworkPolicyPeer{
					AddressGroups:   []string{"ag1", "ag2"},
					IPBlocks:        []cp.IPBlock{{CIDR: cp.IPNet{IP: cp.IPAddress(net.ParseIP("10.0.0.0").To4()), PrefixLength: 8}, Except: []cp.IPNet{{IP: cp.IPAddress(net.ParseIP("10.1.0.0").To4()), PrefixLength: 16}}}},
					LabelIdentities: []uint32{1, 300},
				},
				Services:      []cp.Service{{Protocol: &tcp, Port: &port80, EndPort: i32(90)}, {Protocol: &udp, Port: &portHttp}, {SrcPort: i32(1000), SrcEndPort: i32(2000)}},
				Priority:      0,
				Action:        &drop,
				EnableLogging: true,
				Name:          "rule1",
				LogLabel:      "lbl",
			},
			{
				Direction:       cp.DirectionOut,
				To:              cp.NetworkPolicyPeer{FQDNs: []string{"*.example.com"}, ToServices: []cp.ServiceReference{{Name: "svc", Namespace: "ns"}}},
				Priority:        -1,
				AppliedToGroups: []string{"atg2"},
				L7Protocols:     []cp.L7Protocol{{HTTP: &cp.HTTPProtocol{Host: "h", Method: "GET", Path: "/x"}}, {TLS: &cp.TLSProtocol{SNI: "s.example"}}},
			},
		},
		AppliedToGroups: []string{"atg1"},
		Priority:        &prio,
		TierPriority:    i32(250),
		SourceRef:       &cp.NetworkPolicyReference{Type: cp.AntreaClusterNetworkPolicy, Name: "acnp", UID: "src-uid"},
	}
	out("networkpolicy_full", np)
	out("networkpolicy_k8s", &cp.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "u2"},
		Rules:      []cp.NetworkPolicyRule{{Direction: cp.DirectionIn, Priority: -1}},
		SourceRef:  &cp.NetworkPolicyReference{Type: cp.K8sNetworkPolicy, Namespace: "ns", Name: "np", UID: "k-uid"},
	})
	out("addressgrouppatch", &cp.AddressGroupPatch{
		ObjectMeta:          metav1.ObjectMeta{Name: "ag1"},
		AddedGroupMembers:   []cp.GroupMember{{Pod: &cp.PodReference{Name: "a", Namespace: "ns"}, IPs: []cp.IPAddress{ip4}}},
		RemovedGroupMembers: []cp.GroupMember{{Pod: &cp.PodReference{Name: "b", Namespace: "ns"}}},
	})
	out("appliedtogrouplist", &cp.AppliedToGroupList{
		ListMeta: metav1.ListMeta{ResourceVersion: "3"},
		Items:    []cp.AppliedToGroup{{ObjectMeta: metav1.ObjectMeta{Name: "atg1"}, GroupMembers: []cp.GroupMember{{Pod: &cp.PodReference{Name: "p", Namespace: "ns"}}}}},
	})
	out("networkpolicystatus", &cp.NetworkPolicyStatus{
		ObjectMeta: metav1.ObjectMeta{Name: "uid-1"},
		Nodes:      []cp.NetworkPolicyNodeStatus{{NodeName: "n1", Generation: 2}, {NodeName: "n2", Generation: 1, RealizationFailure: true, Message: "boom"}},
	})
	out("nodestatssummary", &cp.NodeStatsSummary{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		AntreaClusterNetworkPolicies: []cp.NetworkPolicyStats{{
			NetworkPolicy:    cp.NetworkPolicyReference{Type: cp.AntreaClusterNetworkPolicy, Name: "acnp", UID: "u"},
			TrafficStats:     stats.TrafficStats{Packets: 10, Bytes: 1 << 40, Sessions: 1},
			RuleTrafficStats: []stats.RuleTrafficStats{{Name: "rule1", TrafficStats: stats.TrafficStats{Packets: 10, Bytes: 1000, Sessions: 1}}},
		}},
	})

	// Full watch frame as the apiserver would send it for an ADDED NetworkPolicy.
	scheme := runtime.NewScheme()
	ser := protobuf.NewSerializer(scheme, scheme)
	var env bytes.Buffer
	if err := ser.Encode(np, &env); err != nil {
		panic(err)
	}
	fmt.Println("networkpolicy_envelope", hex.EncodeToString(env.Bytes()))
	var w bytes.Buffer
	enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(&w), protobuf.NewRawSerializer(scheme, scheme))
	if err := enc.Encode(&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: env.Bytes()}}); err != nil {
		panic(err)
	}
	fmt.Println("networkpolicy_watch_frame", hex.EncodeToString(w.Bytes()))
}
