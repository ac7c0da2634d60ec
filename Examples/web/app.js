// The reference web shell: the system sheet and the in-app search it opens, speaking Connect
// JSON to the server that serves this page. Plain ES module, no build step, no framework.
import { call } from "./connect.js";
import { pixelBufferOf } from "./pixels.js";

const $ = (id) => document.getElementById(id);

/** What the person captured: labels typed, and the pixels of an image if one was given. */
const capture = { pixelBuffer: null };

/** The search screen's refinement: what the next Search request carries in full. */
let search = null;

function descriptor() {
  const labels = $("labels").value.split(",").map((text) => text.trim()).filter(Boolean).map((text) => ({ text }));
  const described = { labels, locale: navigator.language || "" };
  if (capture.pixelBuffer) {
    described.pixelBuffer = capture.pixelBuffer;
    described.source = "SOURCE_CAMERA";
  }
  return described;
}

function status(text) {
  $("status").textContent = text;
}

// ---------------------------------------------------------------------------------------------
// The sheet

async function query() {
  const captured = descriptor();
  if (captured.labels.length === 0 && !captured.pixelBuffer) {
    status("Type a label or give an image first.");
    return;
  }
  status("Searching…");
  try {
    const response = await call("Query", { descriptor: captured, limit: 10 });
    showSheet(response.results || []);
    status("");
  } catch (error) {
    status(error.message);
  }
}

function imageURL(entity) {
  return `/catalog-images/${encodeURIComponent(entity.type)}/${encodeURIComponent(entity.id)}`;
}

/** One result as a button: a thumbnail when there are several, the full image when it is alone. */
function resultItem(result, single) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = single ? "result single" : "result";
  button.dataset.testid = "result";
  if (result.entity) {
    const image = document.createElement("img");
    image.className = single ? "full" : "thumbnail";
    image.alt = "";
    image.loading = "lazy";
    image.src = imageURL(result.entity);
    image.addEventListener("error", () => image.remove());
    button.append(image);
  }
  const text = document.createElement("span");
  text.className = "text";
  const type = document.createElement("span");
  type.className = "type";
  type.textContent = result.entity ? result.entity.type : "";
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = result.title || "";
  const subtitle = document.createElement("span");
  subtitle.className = "subtitle";
  subtitle.textContent = result.subtitle || "";
  text.append(type, title, subtitle);
  button.append(text);
  button.addEventListener("click", () => resolve(result));
  item.append(button);
  return item;
}

function showSheet(results) {
  $("sheet").hidden = false;
  $("destination").hidden = true;
  const list = $("results");
  list.replaceChildren(...results.map((result) => resultItem(result, results.length === 1)));
  $("empty").hidden = results.length > 0;
}

// ---------------------------------------------------------------------------------------------
// A tap: resolve the result's link (or its entity) to the screen it opens

async function resolve(result) {
  const request = result.deepLink ? { url: result.deepLink } : { entity: result.entity };
  try {
    const destination = await call("Resolve", request);
    const details = $("destination-details");
    const rows = [
      ["Screen", destination.screen],
      ["Route", destination.route || "—"],
      ["Canonical URL", destination.canonicalUrl || "—"],
      ...(destination.params || []).map((param) => [
        `Parameter ${param.name}`,
        param.intValue !== undefined ? param.intValue : param.stringValue !== undefined ? param.stringValue : "",
      ]),
    ];
    if (destination.fallback) rows.push(["Fallback", destination.fallbackReason || "yes"]);
    details.replaceChildren(...rows.flatMap(([name, value]) => {
      const term = document.createElement("dt");
      term.textContent = name;
      const definition = document.createElement("dd");
      definition.textContent = value;
      return [term, definition];
    }));
    $("destination").hidden = false;
    $("destination").scrollIntoView({ block: "nearest" });
  } catch (error) {
    status(error.message);
  }
}

// ---------------------------------------------------------------------------------------------
// "More results": the in-app search, filled in from the capture

async function moreResults() {
  status("Opening the search…");
  try {
    const state = await call("Capture", { descriptor: descriptor(), pageSize: 20 });
    search = {
      sessionId: state.sessionId,
      query: undefined,
      disabledLabels: new Set(),
      entityTypes: new Set(),
      categories: new Set(),
      values: new Map(), // string attribute → Set of values
      ranges: new Map(), // number attribute → bucket "min..max"
      sort: state.sort || {},
      pages: [],
    };
    $("query").value = state.queryText || "";
    showSearch(state, false);
    status("");
  } catch (error) {
    status(error.message);
  }
}

function searchRequest(pageToken) {
  const filters = [];
  for (const [attribute, values] of search.values) {
    if (values.size) filters.push({ attribute, anyOf: { values: [...values] } });
  }
  for (const [attribute, bucket] of search.ranges) {
    const [min, max] = bucket.split("..").map(Number);
    filters.push({ attribute, range: { min, max } });
  }
  const request = {
    sessionId: search.sessionId,
    disabledLabels: [...search.disabledLabels],
    entityTypes: [...search.entityTypes],
    categories: [...search.categories],
    filters,
    sort: search.sort,
    pageToken: pageToken || "",
  };
  if (search.query !== undefined) request.query = search.query;
  return request;
}

async function refine(pageToken) {
  try {
    const state = await call("Search", searchRequest(pageToken));
    showSearch(state, Boolean(pageToken));
  } catch (error) {
    // A page token outlives its snapshot after catalog changes: start again from page 1.
    if (pageToken && error.code === "failed_precondition") return refine("");
    status(error.message);
  }
}

function showSearch(state, appended) {
  $("search").hidden = false;
  showChips(state.chips || []);
  showFacets(state.facets || []);
  showSort(state);
  const notes = (state.relaxations || []).map((relaxation) => {
    const item = document.createElement("li");
    item.textContent = relaxation.explanation || `${relaxation.kind}: ${relaxation.subject || ""}`;
    return item;
  });
  $("relaxations").replaceChildren(...notes);
  const total = Number(state.totalHits || 0);
  $("total").textContent = total === 1 ? "1 result" : `${total} results`;
  const items = (state.results || []).map((result) => resultItem(result, false));
  if (appended) $("search-results").append(...items);
  else $("search-results").replaceChildren(...items);
  const next = $("next-page");
  next.hidden = !state.nextPageToken;
  next.onclick = () => refine(state.nextPageToken);
  const browse = state.browseCategories || [];
  $("browse").hidden = browse.length === 0;
  $("browse-categories").replaceChildren(...browse.map((category) => {
    const item = document.createElement("li");
    const button = chipButton(`${category.value} (${category.count})`, false, () => {
      search.categories = new Set([category.value]);
      refine();
    });
    item.append(button);
    return item;
  }));
}

function chipButton(text, pressed, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "chip";
  button.dataset.testid = "chip";
  button.textContent = text;
  button.setAttribute("aria-pressed", String(pressed));
  button.addEventListener("click", action);
  return button;
}

function showChips(chips) {
  $("chips").replaceChildren(...chips.map((chip) => chipButton(chip.text, Boolean(chip.selected), () => {
    if (search.disabledLabels.has(chip.text)) search.disabledLabels.delete(chip.text);
    else search.disabledLabels.add(chip.text);
    refine();
  })));
}

/** Each facet as a fieldset of checkboxes with counts; numbers as one-of buckets. */
function showFacets(facets) {
  $("facets").replaceChildren(...facets.map((facet) => {
    const set = document.createElement("fieldset");
    set.dataset.testid = "facet";
    set.dataset.facet = facet.name;
    const legend = document.createElement("legend");
    legend.textContent = facet.name;
    set.append(legend);
    for (const value of facet.values || []) {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = Boolean(value.selected);
      box.addEventListener("change", () => toggle(facet, value.value, box.checked));
      const text = document.createElement("span");
      text.textContent = value.value;
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = value.count || "0";
      label.append(box, text, count);
      set.append(label);
    }
    if (facet.moreValues) {
      const more = document.createElement("p");
      more.textContent = `and ${facet.moreValues} more`;
      set.append(more);
    }
    return set;
  }));
}

function toggle(facet, value, on) {
  const flip = (set) => (on ? set.add(value) : set.delete(value));
  switch (facet.kind) {
    case "FACET_KIND_TYPE": flip(search.entityTypes); break;
    case "FACET_KIND_CATEGORY": flip(search.categories); break;
    case "FACET_KIND_NUMBER":
      if (on) search.ranges.set(facet.name, value);
      else search.ranges.delete(facet.name);
      break;
    default: {
      const values = search.values.get(facet.name) || new Set();
      flip(values);
      search.values.set(facet.name, values);
    }
  }
  refine();
}

/** Relevance, title, and each numeric facet both ways. */
function showSort(state) {
  const select = $("sort");
  const choices = [["Relevance", {}], ["Title", { key: "SORT_KEY_TITLE" }]];
  for (const facet of state.facets || []) {
    if (facet.kind !== "FACET_KIND_NUMBER") continue;
    choices.push([`${facet.name}, smallest first`, { key: "SORT_KEY_ATTRIBUTE", attribute: facet.name }]);
    choices.push([`${facet.name}, largest first`, { key: "SORT_KEY_ATTRIBUTE", attribute: facet.name, descending: true }]);
  }
  const current = JSON.stringify(state.sort || {});
  select.replaceChildren(...choices.map(([name, sort], index) => {
    const option = document.createElement("option");
    option.value = String(index);
    option.textContent = name;
    option.selected = JSON.stringify(sort) === current;
    return option;
  }));
  select.onchange = () => {
    search.sort = choices[Number(select.value)][1];
    refine();
  };
}

// ---------------------------------------------------------------------------------------------
// Images: dropped, picked, or a camera frame, reduced in the browser and sent as pixels

async function useImage(blob) {
  try {
    const bitmap = await createImageBitmap(blob);
    setImage(bitmap, URL.createObjectURL(blob));
  } catch {
    status("That file is not an image this browser can read.");
  }
}

function setImage(source, previewURL) {
  capture.pixelBuffer = pixelBufferOf(source);
  const preview = $("image-preview");
  preview.src = previewURL;
  preview.hidden = false;
  $("image-clear").hidden = false;
  query();
}

async function startCamera() {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
    const video = $("camera");
    video.srcObject = stream;
    video.hidden = false;
    await video.play();
    $("camera-shot").hidden = false;
  } catch (error) {
    status(`The camera is not available: ${error.message}`);
  }
}

function takeFrame() {
  const video = $("camera");
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d").drawImage(video, 0, 0);
  setImage(video, canvas.toDataURL("image/jpeg"));
}

// ---------------------------------------------------------------------------------------------

function wire() {
  $("capture-form").addEventListener("submit", (event) => {
    event.preventDefault();
    query();
  });
  $("more").addEventListener("click", moreResults);
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    search.query = $("query").value;
    refine();
  });
  const drop = $("drop");
  const picker = $("image-file");
  drop.addEventListener("click", () => picker.click());
  drop.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      picker.click();
    }
  });
  picker.addEventListener("change", () => picker.files[0] && useImage(picker.files[0]));
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer.files[0];
    if (file) useImage(file);
  });
  $("image-clear").addEventListener("click", () => {
    capture.pixelBuffer = null;
    $("image-preview").hidden = true;
    $("image-clear").hidden = true;
  });
  $("camera-start").addEventListener("click", startCamera);
  $("camera-shot").addEventListener("click", takeFrame);

  // /?labels=jazz,vienna starts with those labels.
  const labels = new URLSearchParams(location.search).get("labels");
  if (labels) {
    $("labels").value = labels.split(",").join(", ");
    query();
  }
}

wire();
