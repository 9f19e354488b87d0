// Shows every <time datetime> of the service's server-rendered pages (the acknowledge, confirmation,
// unsubscribe and stop-paging pages behind e-mailed links) in the reader's own time zone. Those pages
// allow exactly this script (their Content-Security-Policy names it); without it they show UTC.
(function () {
  var format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  var times = document.querySelectorAll('time[datetime]');
  for (var index = 0; index < times.length; index++) {
    var element = times[index];
    var instant = new Date(element.getAttribute('datetime'));
    if (isNaN(instant.getTime())) continue;
    element.title = element.getAttribute('datetime');
    element.textContent = format.format(instant);
  }
})();
