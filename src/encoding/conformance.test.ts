// Every codec the server speaks runs the one codec conformance suite.
import { cborCodec, decodeCborSequence } from "./cbor.js";
import { jsonCodec, yamlCodec } from "./codec.js";
import { codecConformance } from "./conformance.testkit.js";
import { decodeWatchStream as decodeProtobufWatchStream, protobufCodec } from "./protobuf/index.js";
import { yaml } from "./yaml-lazy.js";

type WatchEvent = { type: string; object: unknown };

// Custom resources and free-form values: every codec but protobuf carries them (protobuf has
// no message for a kind it was not generated for).
const customResource = {
  apiVersion: "stable.example.com/v1",
  kind: "CronTab",
  metadata: { name: "every-minute", namespace: "default" },
  spec: { cronSpec: "* * * * */5", replicas: 3, ratio: 0.25, negative: -17, big: 9007199254740991, enabled: false, nothing: null, list: [true, "s", 1, { deep: [[]] }], empty: {} },
};

codecConformance({
  codec: jsonCodec,
  samples: [customResource],
  decodeWatchStream: (bytes) => bytes.toString("utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as WatchEvent),
});

codecConformance({
  codec: yamlCodec,
  samples: [customResource],
  decodeWatchStream: (bytes) => yaml().parseAllDocuments(bytes.toString("utf8")).map((d) => d.toJS() as WatchEvent),
});

codecConformance({
  codec: protobufCodec,
  decodeWatchStream: decodeProtobufWatchStream,
});

codecConformance({
  codec: cborCodec,
  samples: [customResource],
  decodeWatchStream: (bytes) => decodeCborSequence(bytes) as WatchEvent[],
});
