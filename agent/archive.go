package main

import (
	"archive/tar"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// archiveOut streams a directory as a tar, names relative to it.
func archiveOut(w http.ResponseWriter, r *http.Request, dir string) {
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		fail(w, http.StatusBadRequest, "not_dir", dir+" is not a directory")
		return
	}
	if err != nil {
		failFile(w, dir, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-tar")
	out := tar.NewWriter(w)
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		return addEntry(out, dir, path)
	})
	_ = out.Close()
}

func addEntry(out *tar.Writer, dir, path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	link := ""
	if st.Mode()&fs.ModeSymlink != 0 {
		link, _ = os.Readlink(path)
	}
	head, err := tar.FileInfoHeader(st, link)
	if err != nil {
		return nil // sockets and the like have no place in a tar
	}
	head.Name, _ = filepath.Rel(dir, path)
	if st.IsDir() {
		head.Name += "/"
	}
	if err := out.WriteHeader(head); err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyN(out, f, head.Size)
	return err
}

// archiveIn unpacks a tar into a directory (made if missing). Entries that would land outside it
// are refused, not skipped: the caller learns the tar was not what it meant.
func archiveIn(w http.ResponseWriter, r *http.Request, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		failFile(w, dir, err)
		return
	}
	in := tar.NewReader(r.Body)
	for {
		head, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(w, http.StatusBadRequest, "invalid", "the body is not a tar: "+err.Error())
			return
		}
		target, err := inside(dir, head.Name)
		if err == nil {
			err = unpack(in, head, target)
		}
		if err != nil {
			failFile(w, filepath.Join(dir, head.Name), err)
			return
		}
	}
	answerInfo(w, dir)
}

func inside(dir, name string) (string, error) {
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", errors.New("a .. part would leave the directory")
		}
	}
	return filepath.Join(dir, filepath.Clean("/"+name)), nil
}

func unpack(in io.Reader, head *tar.Header, target string) error {
	mode := os.FileMode(head.Mode).Perm()
	switch head.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(target, mode|0o700)
	case tar.TypeSymlink:
		_ = os.MkdirAll(filepath.Dir(target), 0o755)
		_ = os.Remove(target)
		return os.Symlink(head.Linkname, target)
	case tar.TypeReg:
		_ = os.MkdirAll(filepath.Dir(target), 0o755)
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, in)
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		return err
	}
	return nil // devices, fifos, hard links: not carried
}
