#!/usr/bin/env python3
"""Signs requests with botocore's own S3 signer, for haul's differential SigV4 test.

Reads one JSON object a line on standard input:
  {"method", "scheme", "host" (host[:port]), "style" ("path"|"virtual"), "bucket",
   "key" (raw), "query" ([[name, value], ...], raw), "headers" ([[name, value], ...]),
   "body" (base64, or null), "access_key", "secret_key", "token" (or null), "region",
   "time" (Unix seconds)}
and prints one JSON object a line: the URL botocore's S3 client would send, the signing
headers S3SigV4Auth put in, and the canonical request it signed.

The URL is built the way botocore's REST serializer builds it (percent_encode of the
bucket, percent_encode(key, safe='/~'), percent_encode_sequence of the query); payload
signing is turned off over https (UNSIGNED-PAYLOAD), as haul does, and on over http.
"""

import base64
import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.utils import percent_encode, percent_encode_sequence

SIGNING_HEADERS = [
    "Authorization",
    "X-Amz-Date",
    "Date",
    "X-Amz-Content-SHA256",
    "X-Amz-Security-Token",
]


def url_of(request):
    if request["style"] == "virtual":
        netloc = request["bucket"] + "." + request["host"]
        path = "/" + percent_encode(request["key"], safe="/~")
    else:
        netloc = request["host"]
        path = "/" + percent_encode(request["bucket"]) + "/"
        path += percent_encode(request["key"], safe="/~")
    url = request["scheme"] + "://" + netloc + path
    if request["query"]:
        url += "?" + percent_encode_sequence([tuple(pair) for pair in request["query"]])
    return url


def sign(request):
    body = base64.b64decode(request["body"]) if request.get("body") is not None else None
    aws_request = AWSRequest(method=request["method"], url=url_of(request), data=body)
    for name, value in request["headers"]:
        aws_request.headers[name] = value  # appends: repeated names stay repeated
    if request["scheme"] == "https":
        aws_request.context["client_config"] = Config(s3={"payload_signing_enabled": False})
    credentials = Credentials(request["access_key"], request["secret_key"], request.get("token"))
    signer = botocore.auth.S3SigV4Auth(credentials, "s3", request["region"])
    moment = datetime.datetime.fromtimestamp(request["time"], datetime.timezone.utc)
    botocore.auth.get_current_datetime = lambda: moment
    captured = {}
    canonical_request = signer.canonical_request

    def capture(signed_request):
        captured["canonical"] = canonical_request(signed_request)
        return captured["canonical"]

    signer.canonical_request = capture
    signer.add_auth(aws_request)
    headers = {
        name.lower(): aws_request.headers[name]
        for name in SIGNING_HEADERS
        if name in aws_request.headers
    }
    return {"url": aws_request.url, "headers": headers, "canonical": captured["canonical"]}


def main():
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(sign(json.loads(line))), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
