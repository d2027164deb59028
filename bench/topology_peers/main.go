// Copyright: (c) 2026, aicluster.slurm contributors
// GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

// Command topology_peers runs NVIDIA topograph's InfiniBand path on one
// ibnetdiscover capture, as its infiniband provider does once it holds the
// capture: ib.GenerateTopologyConfig (parse, leaf-to-core tree, merge) given
// the node list, then translate.NewNetworkTopology + Generate, which prints
// topology.conf for topology/tree. bench/topology_peers.py runs it beside the
// collection's own pipeline on the same file.
//
//	topology_peers -nodes nodes.txt -out topology.conf fabric.txt
//
// Prints one JSON line: nodes, switches, output lines and seconds per stage.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/NVIDIA/topograph/pkg/ib"
	"github.com/NVIDIA/topograph/pkg/topology"
	"github.com/NVIDIA/topograph/pkg/translate"
)

type report struct {
	Nodes     int     `json:"nodes"`
	Switches  int     `json:"switches"`
	Lines     int     `json:"lines"`
	ReadS     float64 `json:"read_s"`
	ParseS    float64 `json:"parse_tree_s"`
	RenderS   float64 `json:"render_s"`
	TotalS    float64 `json:"total_s"`
	InputSize int     `json:"input_bytes"`
}

func countSwitches(v *topology.Vertex, seen map[string]bool) int {
	n := 0
	for id, w := range v.Vertices {
		if len(w.Vertices) == 0 || seen[id] {
			continue
		}
		seen[id] = true
		n += 1 + countSwitches(w, seen)
	}
	return n
}

func run(capture, nodeList, out string) (*report, error) {
	t0 := time.Now()
	data, err := os.ReadFile(capture)
	if err != nil {
		return nil, err
	}
	// The node list, as the provider gets it from its request: instance ID -> node name.
	instances := map[string]string{}
	if nodeList != "" {
		names, err := os.ReadFile(nodeList)
		if err != nil {
			return nil, err
		}
		scanner := bufio.NewScanner(bytes.NewReader(names))
		for scanner.Scan() {
			if name := strings.TrimSpace(scanner.Text()); name != "" {
				instances[name] = name
			}
		}
	}
	cis := []topology.ComputeInstances{{Instances: instances}}
	t1 := time.Now()

	roots, hca, err := ib.GenerateTopologyConfig(data, cis)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()

	// The tree as pkg/providers/infiniband getIbTree and toGraph build it.
	treeRoot := &topology.Vertex{Vertices: make(map[string]*topology.Vertex)}
	for _, v := range roots {
		treeRoot.Vertices[v.ID] = v
	}
	root := &topology.Vertex{
		Vertices: map[string]*topology.Vertex{topology.TopologyTree: treeRoot},
		Metadata: map[string]string{},
	}
	nt, err := translate.NewNetworkTopology(root, &translate.Config{Plugin: topology.TopologyTree})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if httpErr := nt.Generate(&buf); httpErr != nil {
		return nil, fmt.Errorf("generate: %s", httpErr.Error())
	}
	t3 := time.Now()

	if out != "" {
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return &report{
		Nodes:     len(hca),
		Switches:  countSwitches(treeRoot, map[string]bool{}),
		Lines:     bytes.Count(buf.Bytes(), []byte("\n")),
		ReadS:     t1.Sub(t0).Seconds(),
		ParseS:    t2.Sub(t1).Seconds(),
		RenderS:   t3.Sub(t2).Seconds(),
		TotalS:    t3.Sub(t0).Seconds(),
		InputSize: len(data),
	}, nil
}

func main() {
	nodeList := flag.String("nodes", "", "file with the cluster's node names, one a line (topograph keeps only these)")
	out := flag.String("out", "", "write the rendered topology.conf here")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: topology_peers [-nodes FILE] [-out FILE] CAPTURE")
		os.Exit(2)
	}
	rep, err := run(flag.Arg(0), *nodeList, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "topology_peers:", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(rep)
	fmt.Println(string(line))
}
