// Httpapi is a small REST service exercised the way its handler tests
// would: goroutines send requests through an http.ServeMux (method and
// wildcard patterns) to handlers, with httptest.NewRequest and
// httptest.NewRecorder. The handlers keep users in a map under a
// sync.RWMutex, decode JSON bodies, encode JSON responses, set headers
// and count requests in a middleware with sync/atomic.
//
// It prints one line, "checksum: <hex>", folded from each client's
// status codes and the FNV-1a hashes of the response bodies, and the
// store's final contents.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// User is the resource the API serves.
type User struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Score int      `json:"score"`
	Roles []string `json:"roles,omitempty"`
}

// server holds the API's state.
type server struct {
	mu       sync.RWMutex
	users    map[int]*User
	requests atomic.Int64
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/{id}", s.getUser)
	mux.HandleFunc("PUT /users/{id}", s.putUser)
	mux.HandleFunc("POST /users/{id}/score", s.addScore)
	mux.HandleFunc("GET /users", s.listUsers)
	return s.count(mux)
}

// count is a middleware that counts requests and sets a header.
func (s *server) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		w.Header().Set("X-Service", "users")
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (s *server) getUser(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		http.Error(w, "bad id", http.StatusBadRequest)
		return
	}
	s.mu.RLock()
	u, ok := s.users[id]
	var c User
	if ok {
		c = *u
	}
	s.mu.RUnlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, &c)
}

func (s *server) putUser(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		http.Error(w, "bad id", http.StatusBadRequest)
		return
	}
	var u User
	if err := json.NewDecoder(r.Body).Decode(&u); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u.ID = id
	s.mu.Lock()
	_, existed := s.users[id]
	if existed {
		// Keep the score: a PUT replaces the profile, not the score.
		u.Score = s.users[id].Score
	}
	s.users[id] = &u
	s.mu.Unlock()
	code := http.StatusCreated
	if existed {
		code = http.StatusOK
	}
	writeJSON(w, code, &u)
}

func (s *server) addScore(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		http.Error(w, "bad id", http.StatusBadRequest)
		return
	}
	var delta struct{ Delta int }
	if err := json.NewDecoder(r.Body).Decode(&delta); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	u, ok := s.users[id]
	if ok {
		u.Score += delta.Delta
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) listUsers(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	s.mu.RLock()
	ids := make([]int, 0, len(s.users))
	for id := range s.users {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = s.users[id].Name
	}
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, names)
}

func main() {
	size := flag.Int("size", 0, "requests per client (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "concurrent clients")
	flag.Parse()
	n := 30_000
	if *short {
		n = 400
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	s := &server{users: make(map[int]*User)}
	h := s.routes()
	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hash := fnv.New64a()
			// Each client owns the ids ≡ k mod w: every response, and the
			// final store, are the same under any schedule.
			for i := 0; i < n; i++ {
				id := k + w*(i%256)
				var req *http.Request
				switch i % 8 {
				case 0, 1:
					body := fmt.Sprintf(`{"name":"user %d","email":"u%d@example.com","roles":["reader","r%d"]}`, id, id, i%5)
					req = httptest.NewRequest("PUT", "/users/"+strconv.Itoa(id), strings.NewReader(body))
				case 2, 3:
					req = httptest.NewRequest("POST", "/users/"+strconv.Itoa(id)+"/score", strings.NewReader(`{"Delta":`+strconv.Itoa(i%7)+`}`))
				case 4, 5, 6:
					req = httptest.NewRequest("GET", "/users/"+strconv.Itoa(id), nil)
				default:
					req = httptest.NewRequest("GET", "/users/"+strconv.Itoa(k)+"x", nil)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				hash.Reset()
				hash.Write(rec.Body.Bytes())
				sums[k] = sums[k]*31 + uint64(rec.Code)*1_000_003 + hash.Sum64()
			}
		}()
	}
	wg.Wait()

	// The final store, listed through the API.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/users?limit=100", nil))
	hash := fnv.New64a()
	hash.Write(rec.Body.Bytes())
	total := hash.Sum64()
	for _, sum := range sums {
		total += sum
	}
	var score int
	for _, u := range s.users {
		score += u.Score
	}
	fmt.Printf("checksum: %016x%x%x\n", total, score, s.requests.Load())
	peak.Report()
}
