// httprouter-bench measures julienschmidt/httprouter on the shared route sets, the way
// go-http-routing-benchmark does (timed in process CPU time): every route of a set is registered, then every route's own
// path (":param" segments taken literally) is looked up once per iteration.
//
// Usage: httprouter-bench NAME=ROUTES[,REQUESTS] ...
// Output: one line per set: "NAME lookup-ns serve-ns allocs-per-serve" (per single lookup).
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"sort"
	"runtime"
	"strings"
	"syscall"

	"github.com/julienschmidt/httprouter"
)

type route struct{ method, path string }

type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

func readLines(path string) []string {
	file, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer file.Close()
	var lines []string
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		if line := strings.TrimSpace(scanner.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// readRoutes accepts "METHOD /path" lines or bare paths (GET); "{p}" becomes ":p".
func readRoutes(path string) []route {
	var routes []route
	for _, line := range readLines(path) {
		method, p := "GET", line
		if fields := strings.Fields(line); len(fields) == 2 {
			method, p = fields[0], fields[1]
		}
		p = strings.NewReplacer("{", ":", "}", "").Replace(p)
		routes = append(routes, route{method, p})
	}
	return routes
}

func median(values []float64) float64 {
	sort.Float64s(values)
	return values[len(values)/2]
}

// cpuTime is the CPU time this process has used (all threads, the garbage collector's too):
// on a shared, noisy machine it is steadier than wall time, and the Swift side measures the same.
func cpuTime() float64 {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano() + usage.Stime.Nano())
}

// perCall runs f (one pass over all requests) for about 0.3 s of CPU time after a warm-up and
// returns CPU ns per pass and heap allocations per pass.
func perCall(f func()) (float64, float64) {
	n := 1
	for {
		start := cpuTime()
		for i := 0; i < n; i++ {
			f()
		}
		if cpuTime()-start > 50e6 {
			break
		}
		n *= 2
	}
	n *= 6
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpuTime()
	for i := 0; i < n; i++ {
		f()
	}
	elapsed := cpuTime() - start
	runtime.ReadMemStats(&after)
	return elapsed / float64(n), float64(after.Mallocs-before.Mallocs) / float64(n)
}

func measure(name string, routes, requests []route) {
	router := httprouter.New()
	handle := func(http.ResponseWriter, *http.Request, httprouter.Params) {}
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		for _, r := range routes {
			router.Handle(r.method, r.path, handle)
		}
		return true
	}()
	if !ok {
		fmt.Printf("%s n/a n/a n/a\n", name)
		return
	}
	reqs := make([]*http.Request, len(requests))
	for i, r := range requests {
		reqs[i], _ = http.NewRequest(r.method, r.path, nil)
		if h, _, _ := router.Lookup(r.method, r.path); h == nil {
			fmt.Fprintf(os.Stderr, "%s: httprouter does not match %s %s\n", name, r.method, r.path)
		}
	}
	w := &discardWriter{http.Header{}}
	var lookups, serves []float64
	var allocs float64
	for run := 0; run < 3; run++ {
		ns, _ := perCall(func() {
			for _, r := range requests {
				router.Lookup(r.method, r.path)
			}
		})
		lookups = append(lookups, ns/float64(len(requests)))
		ns, perPass := perCall(func() {
			for _, req := range reqs {
				router.ServeHTTP(w, req)
			}
		})
		serves = append(serves, ns/float64(len(requests)))
		allocs = perPass / float64(len(requests))
	}
	fmt.Printf("%s %.1f %.1f %.2f\n", name, median(lookups), median(serves), allocs)
}

func main() {
	for _, arg := range os.Args[1:] {
		name, files, _ := strings.Cut(arg, "=")
		routeFile, requestFile, _ := strings.Cut(files, ",")
		routes := readRoutes(routeFile)
		requests := routes
		if requestFile != "" {
			requests = readRoutes(requestFile)
		}
		measure(name, routes, requests)
	}
}
