package cftest

import (
	"encoding/json"
	"net/http"
)

// Answers in Cloudflare's envelope.

func envelope(result any) map[string]any {
	return map[string]any{"success": true, "errors": []any{}, "messages": []any{}, "result": result}
}

func reply(w http.ResponseWriter, rec *Record, err *apiError) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, envelope(rec))
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, map[string]any{"success": false,
		"errors":   []map[string]any{{"code": e.code, "message": e.msg}},
		"messages": []any{}, "result": nil})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
