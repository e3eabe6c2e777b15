// The classic node.js `net` hello-world server, made correct for pipelining: one
// preformatted keep-alive response per CRLFCRLF in each chunk, written in one write.
// HTTP/1.0 requests without keep-alive get a close. Usage: node node_net.js PORT
const net = require('net');
const RESP = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello World\n');
// HTTP/1.0 keep-alive needs the header (`ab -k` looks for it).
const RESP_KA10 = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: keep-alive\r\n\r\nHello World\n');
net.createServer((s) => {
  s.setNoDelay(true);
  let carry = '';
  s.on('data', (d) => {
    const text = carry + d.toString('latin1');
    let n = 0, at = 0, i;
    while ((i = text.indexOf('\r\n\r\n', at)) !== -1) { n++; at = i + 4; }
    carry = text.slice(Math.max(at, text.length - 3));
    if (n === 0) return;
    const http10 = text.includes('HTTP/1.0'), ka = /keep-alive/i.test(text);
    const resp = http10 && ka ? RESP_KA10 : RESP;
    s.write(n === 1 ? resp : Buffer.concat(Array(n).fill(resp)));
    if (http10 && !ka) s.end();
  });
  s.on('error', () => {});
}).listen(+process.argv[2], '127.0.0.1');
