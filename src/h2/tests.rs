//! Unit tests of the HTTP/2 connection, driven without sockets.
