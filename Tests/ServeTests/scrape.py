#!/usr/bin/env python3
"""What a monitoring system sees of `coordsh serve --metrics`, through Prometheus's own client
library (its text-format parser), for MetricsTests.

  scrape.py samples URL       every sample, one JSON object per line: name, labels, value;
                              exit 1 with the parser's error if the text is not valid
  scrape.py status METHOD URL the HTTP status and Content-Type of METHOD URL
  scrape.py garbage HOST PORT sends bytes that are not HTTP; prints the first line answered
"""
import json
import socket
import sys
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def samples(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        kind = response.headers.get("Content-Type", "")
        text = response.read().decode("utf-8")
    if not kind.startswith("text/plain"):
        sys.exit(f"Content-Type {kind!r} is not Prometheus's text format")
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                                  "labels": sample.labels, "value": sample.value}))
    except Exception as error:  # the parser's own complaint is the point
        sys.exit(f"not valid Prometheus text: {error}\n{text}")


def status(method, url):
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            print(response.status, response.headers.get("Content-Type", ""))
    except urllib.error.HTTPError as error:
        print(error.code, error.headers.get("Content-Type", ""))


def garbage(host, port):
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(b"\x00\x01 not http at all \xff\r\n\r\n")
        answer = connection.recv(4096).decode("latin-1")
        print(answer.split("\r\n", 1)[0])


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"samples": samples, "status": status, "garbage": garbage}[command](*arguments)
