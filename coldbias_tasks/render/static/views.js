(function () {
  // a checkbox per details view shows or hides its columns (class "show-<view>" on the table)
  var table = document.getElementById("leaderboard");
  var boxes = document.querySelectorAll("input[data-view]");
  function apply(box) {
    table.classList.toggle("show-" + box.getAttribute("data-view"), box.checked);
  }
  for (var i = 0; i < boxes.length; i++) {
    boxes[i].addEventListener("change", function (e) { apply(e.target); });
    apply(boxes[i]);
  }
  // #details=all shows every column on load
  if (/(^#|&)details=all/.test(window.location.hash)) {
    for (var j = 0; j < boxes.length; j++) { boxes[j].checked = true; apply(boxes[j]); }
  }
})();
