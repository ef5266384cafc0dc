package powerdns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	pdns "github.com/joeig/go-powerdns/v3"
)

// rawAPI sends requests go-powerdns v3 cannot: its RRset drops an empty
// comments list (omitempty), so it can never clear the last comment of an
// rrset. Failures come back as *pdns.Error, so
// call and retry classify them as they do the library's.
type rawAPI struct {
	http   *http.Client
	base   string // the provider's URL, without a trailing slash
	server string
	key    string
}

// do sends body (JSON, or none when nil) to path under the server's
// /api/v1/servers/{server}/ and decodes a JSON answer into out, if any.
func (r rawAPI) do(ctx context.Context, method, path string, body, out any) error {
	return r.send(ctx, method, path, body, out, 0)
}

// errAnswerTooLarge is an answer send read no further than its limit.
var errAnswerTooLarge = errors.New("the answer is larger than site reads of it")

// send is do, reading at most limit bytes of the answer when limit > 0
// (errAnswerTooLarge past it): for answers anyone with API access may
// have made large, like a journal's metadata.
func (r rawAPI) send(ctx context.Context, method, path string, body, out any, limit int64) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	u := r.base + "/api/v1/servers/" + url.PathEscape(r.server) + "/" + path
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// The client's transport bounds the answer (Driver.MaxAnswerBytes)
	// and says so when it cuts it.
	var src io.Reader = resp.Body
	if limit > 0 {
		src = io.LimitReader(resp.Body, limit+1)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	if limit > 0 && int64(len(data)) > limit {
		return errAnswerTooLarge
	}
	if resp.StatusCode >= 300 {
		msg := http.StatusText(resp.StatusCode)
		if m := parseErrorBody(data); len(m) > 0 && resp.StatusCode != http.StatusUnauthorized {
			msg = m[0]
		}
		return &pdns.Error{StatusCode: resp.StatusCode, Status: resp.Status, Message: msg}
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)
	}
	return nil
}
