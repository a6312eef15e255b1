package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// checkAddr refuses an address to listen on that is not host:port, such
// as a port alone ("--addr 8080"), naming the address to give instead.
func checkAddr(flagName, addr string) error {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return nil
	}
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		return fmt.Errorf("%s %s is a port alone; use 127.0.0.1:%s (this machine only) or :%s (every interface)", flagName, addr, addr, addr)
	}
	return fmt.Errorf("%s %q: want host:port, such as 127.0.0.1:8080", flagName, addr)
}

// listen binds addr, given by flagName, at once, so that a command learns
// that it cannot serve before it does anything slow. Its error is one line
// for people: an address in use names another to give.
func listen(flagName, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is already in use; give another address, such as %s %s (any free port)", addr, flagName, anyPort(addr))
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err // without "listen tcp ADDR:", which the message says
	}
	if errors.Is(err, syscall.EACCES) {
		return nil, fmt.Errorf("cannot listen on %s: %v (ports below 1024 need privileges); give another address, such as %s %s", addr, err, flagName, anyPort(addr))
	}
	return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
}

// anyPort is addr with port 0, which the system fills with a free port.
func anyPort(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, "0")
}
