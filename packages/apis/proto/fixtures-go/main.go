// Prints golden protobuf fixtures produced by the real Go code (apimachinery serializers and
// Antrea's generated marshallers); see setup-antrea.sh. Not part of the TS build.
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func main() {
	cpFixtures()
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	ser := protobuf.NewSerializer(scheme, scheme)
	raw := protobuf.NewRawSerializer(scheme, scheme)

	st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Message: "gone", Reason: "Expired", Code: 410}
	var b bytes.Buffer
	if err := ser.Encode(st, &b); err != nil { panic(err) }
	env := append([]byte(nil), b.Bytes()...)
	fmt.Println("status_envelope", hex.EncodeToString(env))

	var w bytes.Buffer
	enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(&w), raw)
	if err := enc.Encode(&metav1.WatchEvent{Type: "ERROR", Object: runtime.RawExtension{Raw: env}}); err != nil { panic(err) }
	fmt.Println("status_watch_frame", hex.EncodeToString(w.Bytes()))

	om := metav1.ObjectMeta{Name: "np", UID: "u1", ResourceVersion: "7", Generation: 3, Labels: map[string]string{"b": "1", "a": "2"}, CreationTimestamp: metav1.Unix(1700000000, 0)}
	ob, _ := om.Marshal()
	fmt.Println("objectmeta", hex.EncodeToString(ob))
	om2 := metav1.ObjectMeta{Name: "x"}
	ob2, _ := om2.Marshal()
	fmt.Println("objectmeta_min", hex.EncodeToString(ob2))
	lm := metav1.ListMeta{ResourceVersion: "9"}
	lb, _ := lm.Marshal()
	fmt.Println("listmeta", hex.EncodeToString(lb))
	i1 := intstr.FromInt32(80)
	ib, _ := i1.Marshal()
	fmt.Println("intstr_80", hex.EncodeToString(ib))
	i2 := intstr.FromString("http")
	ib2, _ := i2.Marshal()
	fmt.Println("intstr_http", hex.EncodeToString(ib2))
}
