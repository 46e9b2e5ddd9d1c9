package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fileInfo is one file as the API shows it.
type fileInfo struct {
	Path       string `json:"path"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	Size       int64  `json:"size"`
	Mode       string `json:"mode"`
	ModifiedAt string `json:"modified_at"`
}

func fileRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /files", withPath(readFile))
	mux.HandleFunc("PUT /files", withPath(writeFile))
	mux.HandleFunc("DELETE /files", withPath(removeFile))
	mux.HandleFunc("GET /files/info", withPath(func(w http.ResponseWriter, r *http.Request, path string) {
		answerInfo(w, path)
	}))
	mux.HandleFunc("GET /files/list", withPath(listDir))
	mux.HandleFunc("POST /files/mkdir", makeDir)
	mux.HandleFunc("POST /files/move", move)
	mux.HandleFunc("GET /files/archive", withPath(archiveOut))
	mux.HandleFunc("PUT /files/archive", withPath(archiveIn))
}

// checkPath refuses what is not an absolute, clean path: hearth serve checks first, this is the last word.
func checkPath(path string) error {
	if !strings.HasPrefix(path, "/") || strings.ContainsRune(path, 0) {
		return errors.New("the path must be absolute, without NUL bytes")
	}
	for _, part := range strings.Split(path, "/") {
		if part == ".." || part == "." {
			return errors.New("the path must not hold . or .. parts")
		}
	}
	return nil
}

func withPath(handle func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Query().Get("path")
		if err := checkPath(path); err != nil {
			fail(w, http.StatusBadRequest, "invalid", err.Error())
			return
		}
		handle(w, r, filepath.Clean(path))
	}
}

func info(path string, st fs.FileInfo) fileInfo {
	kind := "file"
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		kind = "symlink"
	case st.IsDir():
		kind = "dir"
	case !st.Mode().IsRegular():
		kind = "other"
	}
	return fileInfo{Path: path, Name: filepath.Base(path), Type: kind, Size: st.Size(),
		Mode:       "0" + strconv.FormatUint(uint64(st.Mode().Perm()), 8),
		ModifiedAt: st.ModTime().UTC().Format(time.RFC3339Nano)}
}

func answerInfo(w http.ResponseWriter, path string) {
	st, err := os.Lstat(path)
	if err != nil {
		failFile(w, path, err)
		return
	}
	answer(w, info(path, st))
}

func answer(w http.ResponseWriter, value any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(value)
}

func readFile(w http.ResponseWriter, r *http.Request, path string) {
	f, err := os.Open(path)
	if err != nil {
		failFile(w, path, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = syscall.EISDIR
	}
	if err != nil {
		failFile(w, path, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if st.Mode().IsRegular() {
		w.Header().Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	}
	_, _ = io.Copy(w, f)
}

// writeFile streams the body into a new file beside the target and renames it over the target
// once whole: a reader never sees half a file, and a failed upload leaves nothing under the name.
func writeFile(w http.ResponseWriter, r *http.Request, path string) {
	mode, err := parseMode(r.URL.Query().Get("mode"))
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		failFile(w, path, syscall.EISDIR)
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		failFile(w, filepath.Dir(path), err)
		return
	}
	temp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".hearth-"+randomHex())
	if err := writeWhole(temp, r.Body, mode); err != nil {
		os.Remove(temp)
		failFile(w, path, err)
		return
	}
	if err := os.Rename(temp, path); err != nil {
		os.Remove(temp)
		failFile(w, path, err)
		return
	}
	answerInfo(w, path)
}

func writeWhole(path string, body io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, body)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

func parseMode(text string) (os.FileMode, error) {
	if text == "" {
		return 0o644, nil
	}
	mode, err := strconv.ParseUint(text, 8, 32)
	if err != nil || mode > 0o7777 {
		return 0, errors.New("mode must be octal, 0 to 7777")
	}
	return os.FileMode(mode), nil
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func removeFile(w http.ResponseWriter, r *http.Request, path string) {
	st, err := os.Lstat(path)
	if err != nil {
		failFile(w, path, err)
		return
	}
	if path == "/" {
		fail(w, http.StatusBadRequest, "invalid", "/ cannot be deleted")
		return
	}
	gone := info(path, st)
	if st.IsDir() && r.URL.Query().Get("recursive") == "true" {
		err = os.RemoveAll(path)
	} else {
		err = os.Remove(path)
	}
	if errors.Is(err, syscall.ENOTEMPTY) {
		fail(w, http.StatusConflict, "exists", path+" is a directory that is not empty; recursive=true deletes it and all in it")
		return
	}
	if err != nil {
		failFile(w, path, err)
		return
	}
	answer(w, gone)
}

func listDir(w http.ResponseWriter, r *http.Request, path string) {
	entries, err := os.ReadDir(path)
	if err != nil {
		failFile(w, path, err)
		return
	}
	list := make([]fileInfo, 0, len(entries))
	for _, e := range entries {
		if st, err := e.Info(); err == nil {
			list = append(list, info(filepath.Join(path, e.Name()), st))
		}
	}
	answer(w, list)
}

func makeDir(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Path string `json:"path"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || checkPath(body.Path) != nil {
		fail(w, http.StatusBadRequest, "invalid", "a body {path} with an absolute path is required")
		return
	}
	if err := os.MkdirAll(body.Path, 0o755); err != nil {
		failFile(w, body.Path, err)
		return
	}
	answerInfo(w, filepath.Clean(body.Path))
}

func move(w http.ResponseWriter, r *http.Request) {
	var body struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || checkPath(body.From) != nil || checkPath(body.To) != nil {
		fail(w, http.StatusBadRequest, "invalid", "a body {from, to} with absolute paths is required")
		return
	}
	if _, err := os.Lstat(body.From); err != nil {
		failFile(w, body.From, err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(body.To), 0o755); err != nil {
		failFile(w, body.To, err)
		return
	}
	err := os.Rename(body.From, body.To)
	if errors.Is(err, syscall.EXDEV) {
		// Another file system (/data and the root are): copy, then remove, as mv(1) does.
		if err = copyTree(body.From, body.To); err == nil {
			err = os.RemoveAll(body.From)
		}
	}
	if err != nil {
		failFile(w, body.To, err)
		return
	}
	answerInfo(w, filepath.Clean(body.To))
}

// copyTree copies a file, a symlink or a directory with everything in it, keeping permission bits.
func copyTree(from, to string) error {
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(link, to)
	case st.IsDir():
		if err := os.Mkdir(to, st.Mode().Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := copyTree(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	temp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".hearth-"+randomHex())
	if err := writeWhole(temp, in, st.Mode().Perm()); err != nil {
		os.Remove(temp)
		return err
	}
	return os.Rename(temp, to)
}
