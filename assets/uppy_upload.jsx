/*
 * The agent-file upload widget, wrapped for Reflex by marketplace/components/uppy.py.
 *
 * Uppy's inline Dashboard (per-file progress and states, pause/resume, retry, remove) uploading straight to
 * storage through @uppy/aws-s3 in Companion mode: the app's `/api/uploads/s3/...` routes answer presigned
 * targets (S3) or signed app URLs (local disk), single request below the multipart threshold, resumable
 * multipart above it. @uppy/golden-retriever keeps the selection in IndexedDB so a reload restores it
 * (Uppy's own 'Session restored' texts).
 *
 * Nothing is decided here: limits and the allowed name endings come from the server as props, each
 * finished upload is only reported (name, size, URL), and the server checks it then (a refusal comes back
 * through `refuse`, shown on the file's card) and again when it is attached.
 */
import React, { useEffect, useRef } from "react";
import Uppy from "@uppy/core";
import Dashboard from "@uppy/dashboard";
import AwsS3 from "@uppy/aws-s3";
import GoldenRetriever from "@uppy/golden-retriever";
import "@uppy/core/css/style.min.css";
import "@uppy/dashboard/css/style.min.css";

const MB = 1024 * 1024;

/* Live instances by id, so the app can empty one (after a submit) with a one-line script. */
const instances =
  typeof window === "undefined" ? {} : (window.__agentUploads = window.__agentUploads || {});

/* What the app needs to know about a finished file: the URL carries the object key the server issued. */
function report(file, response) {
  const body = (response && response.body) || {};
  return {
    id: file.id,
    name: file.name || "",
    size: file.size || 0,
    url: (response && response.uploadURL) || body.location || "",
  };
}

/*
 * The count is not an Uppy restriction: Uppy refuses a whole batch that goes over it. `onBeforeFileAdded`
 * keeps the first files that fit instead, and the widget says which were left out.
 */
function restrictionsOf(maxFileSize, allowedTypes) {
  return {
    maxFileSize: maxFileSize > 0 ? maxFileSize : 10 * MB,
    allowedFileTypes: allowedTypes && allowedTypes.length > 0 ? allowedTypes : null,
  };
}

function limitOf(maxFiles) {
  return maxFiles > 0 ? maxFiles : 1;
}

export function UppyUpload({
  uppyId,
  endpoint,
  maxFiles,
  maxFileSize,
  allowedTypes,
  multipartThreshold,
  note,
  height,
  disabled,
  onUploaded,
  onRemoved,
  onRestored,
  className,
  id,
}) {
  const target = useRef(null);
  const uppyRef = useRef(null);
  // Reflex hands fresh callbacks on every render: the listeners read the newest through refs.
  const callbacks = useRef({});
  callbacks.current = { onUploaded, onRemoved, onRestored };
  const threshold = useRef(multipartThreshold);
  threshold.current = multipartThreshold;
  const limit = useRef(limitOf(maxFiles));
  limit.current = limitOf(maxFiles);

  useEffect(() => {
    if (!target.current) {
      return undefined;
    }
    const name = uppyId || "agent-files";
    // Files past the limit in one pick: named once, after the batch (Uppy adds a batch file by file).
    let leftOut = [];
    const sayLeftOut = () => {
      const names = leftOut;
      leftOut = [];
      if (names.length > 0) {
        uppy.info(
          {
            message: `Only ${limit.current} file(s) can be added; left out: ${names.join(", ")}`,
            details: "Remove a file to add another.",
          },
          "error",
          8000,
        );
      }
    };
    const uppy = new Uppy({
      id: name,
      autoProceed: true,
      restrictions: restrictionsOf(maxFileSize, allowedTypes),
      onBeforeFileAdded: (file, files) => {
        if (Object.hasOwn(files, file.id)) {
          return false;
        }
        if (Object.values(files).filter((f) => !f.error).length >= limit.current) {
          if (leftOut.length === 0) {
            setTimeout(sayLeftOut, 0);
          }
          leftOut.push(file.name || "file");
          return false;
        }
        return true;
      },
    });
    uppy.use(Dashboard, {
      inline: true,
      target: target.current,
      width: "100%",
      height: height || 360,
      note: note || null,
      proudlyDisplayPoweredByUppy: false,
      showRemoveButtonAfterComplete: true,
      doneButtonHandler: null,
      theme: "light",
    });
    uppy.use(AwsS3, {
      companionEndpoint: endpoint || "/api/uploads",
      shouldUseMultipart: (file) => (file.size || 0) > (threshold.current || 100 * MB),
    });
    uppy.use(GoldenRetriever);

    let clearing = false;
    const uploaded = (file, response) => {
      const cb = callbacks.current.onUploaded;
      if (cb) {
        cb(report(file, response));
      }
    };
    const removed = (file) => {
      const cb = callbacks.current.onRemoved;
      if (!clearing && cb && file) {
        cb(file.id);
      }
    };
    // Files a reload brought back that had finished before it (and were not refused): the page's state starts
    // empty, so tell it again.
    const restored = () => {
      const cb = callbacks.current.onRestored;
      if (!cb) {
        return;
      }
      const done = uppy
        .getFiles()
        .filter((f) => f.progress && f.progress.uploadComplete && f.response && !f.error);
      if (done.length > 0) {
        cb(done.map((f) => report(f, f.response)));
      }
    };
    uppy.on("upload-success", uploaded);
    uppy.on("file-removed", removed);
    uppy.on("restored", restored);
    uppyRef.current = uppy;
    const quietly = (action) => {
      clearing = true;
      try {
        action();
      } finally {
        clearing = false;
      }
    };
    instances[name] = {
      clear: () => quietly(() => uppy.cancelAll()),
      // The server refused a finished file: its card shows the reason (and Uppy's notice names the file).
      refuse: (fileId, message) => {
        const file = uppy.getFile(fileId);
        if (file) {
          uppy.emit("upload-error", file, { message, details: "" });
        }
      },
    };
    return () => {
      uppy.off("upload-success", uploaded);
      uppy.off("file-removed", removed);
      uppy.off("restored", restored);
      delete instances[name];
      uppyRef.current = null;
      uppy.destroy();
    };
    // The instance lives as long as its id and endpoint; limits are updated in place below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [uppyId, endpoint]);

  // A new array arrives with every render: compare the endings, not the array.
  const typesKey = (allowedTypes || []).join(" ");
  useEffect(() => {
    const uppy = uppyRef.current;
    if (uppy) {
      uppy.setOptions({ restrictions: restrictionsOf(maxFileSize, allowedTypes) });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [maxFileSize, typesKey]);

  useEffect(() => {
    const uppy = uppyRef.current;
    const dashboard = uppy && uppy.getPlugin("Dashboard");
    if (dashboard) {
      dashboard.setOptions({ disabled: Boolean(disabled), note: note || null });
    }
  }, [disabled, note]);

  return <div ref={target} id={id} className={className} style={{ width: "100%" }} data-uppy-id={uppyId} />;
}
